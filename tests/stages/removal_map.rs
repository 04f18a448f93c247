//! A removal's maps as the GPU reads them (`shaders/removal_map.wgsl`,
//! written by `softbody::gpu::map_words`) against the world's
//! [`Remap`]: every old item's new index and every new item's old one, for
//! removals of one item and of many, in the middle and at the end, with
//! all items packed and with some appended after the last sync.

use crate::common::{Rng, gpu};
use softbody::gpu::map_words;
use softbody::gpu::shaders::{FRAGMENTS, SHARED};
use softbody::world::Remap;
use wgpu::util::DeviceExt;

/// One thread an index: for each kind, `map_new` of old index `i` and
/// `map_old` of new index `i` (below the new end).
const PROBE: &str = r#"
@group(0) @binding(0) var<storage, read> removal_words: array<u32>;
@group(0) @binding(1) var<uniform> removal_spans: array<vec4<u32>, 4>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<u32>>;

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&out)) {
        return;
    }
    var o = vec4<u32>(map_new(MAP_POINTS, i), REMOVED, map_new(MAP_BODIES, i), REMOVED);
    if (i < removal_spans[2u * MAP_POINTS].y) {
        o.y = map_old(MAP_POINTS, i);
    }
    if (i < removal_spans[2u * MAP_BODIES].y) {
        o.w = map_old(MAP_BODIES, i);
    }
    out[i] = o;
}
"#;

/// What the kernel reads `map` as: old item `i` below `packed` to its new
/// index, new item `i` to its old one.
fn expected(map: &Remap, packed: usize, i: u32) -> (u32, u32) {
    let new = (i as usize) < packed;
    let to = map.get(i).filter(|_| new).unwrap_or(Remap::REMOVED);
    (to, map.old_of(i).unwrap_or(Remap::REMOVED))
}

#[test]
fn the_maps_the_gpu_reads_are_the_worlds() {
    let Some(ctx) = gpu() else { return };
    let (device, queue) = (&ctx.device, &ctx.queue);
    let fragment = FRAGMENTS.iter().find(|(n, _)| *n == "removal_map");
    let source = format!("{SHARED}\n{}\n{PROBE}", fragment.expect("the fragment").1);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("removal_map probe"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("probe"),
        layout: None,
        module: &module,
        entry_point: Some("probe"),
        compilation_options: Default::default(),
        cache: None,
    });
    let mut rng = Rng(0x005e_ed0f_4ea1);
    let mut cases: Vec<(usize, Vec<u32>, usize)> = vec![
        (10, vec![3], 10),
        (10, vec![9], 10),
        (10, vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 10),
        (1, vec![], 1),
        (12, vec![2, 11, 5], 9),
    ];
    for _ in 0..24 {
        let n = 1 + rng.below(300);
        let removed: Vec<u32> = (0..1 + rng.below(n.min(40)))
            .map(|_| rng.below(n) as u32)
            .collect();
        cases.push((n, removed, n - rng.below(n.min(8))));
    }
    for (n, removed, packed) in cases {
        // Points and bodies as two maps of different lengths.
        let points = Remap::from_removed(n, &removed);
        let bodies = Remap::from_removed(
            n + 7,
            &[removed[..removed.len() / 2].to_vec(), vec![n as u32 + 3]].concat(),
        );
        let maps = [&points, &bodies];
        let packed = [packed as u32, packed as u32 + 7];
        let after = [
            points.prefix_len(packed[0] as usize),
            bodies.prefix_len(packed[1] as usize),
        ];
        let (mut words, spans) = map_words(maps, packed, [after[0] as u32, after[1] as u32]);
        words.push(u32::MAX);
        let init = |contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents,
                usage,
            })
        };
        let words = init(bytemuck::cast_slice(&words), wgpu::BufferUsages::STORAGE);
        let spans = init(bytemuck::cast_slice(&spans), wgpu::BufferUsages::UNIFORM);
        let len = n + 12;
        let out = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 16 * len as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: words.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: spans.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: out.as_entire_binding(),
                },
            ],
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups((len as u32).div_ceil(64), 1, 1);
        }
        queue.submit([encoder.finish()]);
        let got: Vec<[u32; 4]> =
            softbody::gpu::read_buffer(device, queue, &out, len).expect("the probe reads back");
        for (i, g) in got.iter().enumerate() {
            let (p, b) = (
                expected(&points, packed[0] as usize, i as u32),
                expected(&bodies, packed[1] as usize, i as u32),
            );
            assert_eq!(
                *g,
                [p.0, p.1, b.0, b.1],
                "item {i} of {n}, {removed:?} removed, {packed:?} packed: GPU (new, old) of points then bodies against the world's"
            );
        }
    }
}
