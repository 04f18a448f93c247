//! WGSL sources: `shaders/shared.wgsl` (structs and helpers shared by every
//! kernel, twins of `crate::layout`) prepended to each stage's source.

use crate::layout::SPREAD;

/// The shared prelude.
pub const SHARED: &str = include_str!("../../shaders/shared.wgsl");

/// Every stage: `(name, source without the prelude)`. The name is the WGSL
/// file, the Rust wrapper module and the CPU mirror alike. Three stages
/// also hold the fragment `shaders/collide_point.wgsl` (a point against
/// the static colliders, and the gravity): `integrate` for the gravity,
/// `collide`, and `shape_match` for its kernel fused with integrate and
/// collide and for its half-plane and planet impacts. `commands` and
/// `move_bodies` hold `shaders/reduce.wgsl`, their workgroup sum;
/// `terrain` and `events` hold `shaders/terrain_contact.wgsl`, a point
/// against the terrain. `sleep`, `remap_contacts` and `events` hold
/// `shaders/removal_map.wgsl`, a removal's maps as the world holds them.
/// `body_collide` is its file followed by its parts, one concern each, in
/// `shaders/body_collide/` (WGSL declarations may come in any order).
pub const STAGES: &[(&str, &str)] = &[
    (
        "integrate",
        concat!(
            include_str!("../../shaders/integrate.wgsl"),
            include_str!("../../shaders/colliders.wgsl"),
            include_str!("../../shaders/collide_point.wgsl")
        ),
    ),
    (
        "collide",
        concat!(
            include_str!("../../shaders/collide.wgsl"),
            include_str!("../../shaders/colliders.wgsl"),
            include_str!("../../shaders/collide_point.wgsl"),
            include_str!("../../shaders/placed.wgsl")
        ),
    ),
    ("springs", include_str!("../../shaders/springs.wgsl")),
    ("rods", include_str!("../../shaders/rods.wgsl")),
    (
        "shape_match",
        concat!(
            include_str!("../../shaders/shape_match.wgsl"),
            include_str!("../../shaders/colliders.wgsl"),
            include_str!("../../shaders/collide_point.wgsl"),
            include_str!("../../shaders/placed.wgsl")
        ),
    ),
    (
        "broad_phase",
        include_str!("../../shaders/broad_phase.wgsl"),
    ),
    (
        "body_collide",
        concat!(
            include_str!("../../shaders/body_collide.wgsl"),
            include_str!("../../shaders/body_collide/narrow.wgsl"),
            include_str!("../../shaders/body_collide/near.wgsl"),
            include_str!("../../shaders/body_collide/warm.wgsl"),
            include_str!("../../shaders/body_collide/resolve.wgsl"),
            include_str!("../../shaders/body_collide/untangle.wgsl")
        ),
    ),
    ("impact", include_str!("../../shaders/impact.wgsl")),
    (
        "sleep",
        concat!(
            include_str!("../../shaders/sleep.wgsl"),
            include_str!("../../shaders/colliders.wgsl"),
            include_str!("../../shaders/removal_map.wgsl")
        ),
    ),
    (
        "move_colliders",
        include_str!("../../shaders/move_colliders.wgsl"),
    ),
    (
        "terrain",
        concat!(
            include_str!("../../shaders/terrain.wgsl"),
            include_str!("../../shaders/terrain_contact.wgsl"),
            include_str!("../../shaders/colliders.wgsl"),
            include_str!("../../shaders/collide_point.wgsl"),
            include_str!("../../shaders/placed.wgsl")
        ),
    ),
    (
        "commands",
        concat!(
            include_str!("../../shaders/commands.wgsl"),
            include_str!("../../shaders/reduce.wgsl")
        ),
    ),
    (
        "move_bodies",
        concat!(
            include_str!("../../shaders/move_bodies.wgsl"),
            include_str!("../../shaders/reduce.wgsl")
        ),
    ),
    ("query", include_str!("../../shaders/query.wgsl")),
    (
        "remap_contacts",
        concat!(
            include_str!("../../shaders/remap_contacts.wgsl"),
            include_str!("../../shaders/removal_map.wgsl")
        ),
    ),
    (
        "events",
        concat!(
            include_str!("../../shaders/events.wgsl"),
            include_str!("../../shaders/terrain_contact.wgsl"),
            include_str!("../../shaders/colliders.wgsl"),
            include_str!("../../shaders/removal_map.wgsl")
        ),
    ),
];

/// Fragments appended to some stages' files (see [`STAGES`]):
/// `(name, source)`, the name being the file's path in `shaders/` without
/// `.wgsl`.
pub const FRAGMENTS: &[(&str, &str)] = &[
    ("colliders", include_str!("../../shaders/colliders.wgsl")),
    ("reduce", include_str!("../../shaders/reduce.wgsl")),
    (
        "terrain_contact",
        include_str!("../../shaders/terrain_contact.wgsl"),
    ),
    (
        "collide_point",
        include_str!("../../shaders/collide_point.wgsl"),
    ),
    ("placed", include_str!("../../shaders/placed.wgsl")),
    (
        "removal_map",
        include_str!("../../shaders/removal_map.wgsl"),
    ),
    (
        "body_collide/narrow",
        include_str!("../../shaders/body_collide/narrow.wgsl"),
    ),
    (
        "body_collide/near",
        include_str!("../../shaders/body_collide/near.wgsl"),
    ),
    (
        "body_collide/warm",
        include_str!("../../shaders/body_collide/warm.wgsl"),
    ),
    (
        "body_collide/resolve",
        include_str!("../../shaders/body_collide/resolve.wgsl"),
    ),
    (
        "body_collide/untangle",
        include_str!("../../shaders/body_collide/untangle.wgsl"),
    ),
];

/// The complete WGSL of a stage (prelude + stage), or `None` for an unknown name.
pub fn stage_source(name: &str) -> Option<String> {
    STAGES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, src)| format!("{SHARED}\n{src}"))
}

/// Creates a compute pipeline with an automatic layout for `entry` of `stage`.
pub(crate) fn pipeline(device: &wgpu::Device, stage: &str, entry: &str) -> wgpu::ComputePipeline {
    pipeline_with(device, stage, entry, &[])
}

/// `old` when an edit's stage kept it, else [`pipeline_with`] the
/// `constants`: edits that only replace buffers keep the compiled
/// pipelines.
pub(crate) fn pipeline_or_kept(
    device: &wgpu::Device,
    stage: &str,
    entry: &str,
    constants: &[(&str, f64)],
    old: Option<&wgpu::ComputePipeline>,
) -> wgpu::ComputePipeline {
    old.cloned()
        .unwrap_or_else(|| pipeline_with(device, stage, entry, constants))
}

/// [`pipeline`] with values for the stage's pipeline-overridable constants
/// (WGSL `override`), by name.
pub(crate) fn pipeline_with(
    device: &wgpu::Device,
    stage: &str,
    entry: &str,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    let source = stage_source(stage).expect("stage names are internal constants");
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(stage),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants,
            ..Default::default()
        },
        cache: None,
    })
}

/// A bind group for group 0 of `pipeline` from `(binding, buffer)` pairs.
pub(crate) fn bind_group(
    device: &wgpu::Device,
    label: &str,
    pipeline: &wgpu::ComputePipeline,
    entries: &[(u32, &wgpu::Buffer)],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = entries
        .iter()
        .map(|(binding, buffer)| wgpu::BindGroupEntry {
            binding: *binding,
            resource: buffer.as_entire_binding(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    })
}

/// Workgroup grid for `groups` workgroups: a row holds at most `max_per_dim`
/// of them; kernels rebuild the linear index (WGSL `linear_index`).
pub(crate) fn grid(groups: u32, max_per_dim: u32) -> (u32, u32) {
    if groups <= max_per_dim {
        (groups, 1)
    } else {
        (max_per_dim, groups.div_ceil(max_per_dim))
    }
}

/// Workgroup grid for at least `groups` workgroups, read through WGSL
/// `spread_index` (see `shaders/shared.wgsl`): the total is a multiple of
/// [`SPREAD`] (the extra
/// workgroups find their items out of range) and so is the row width.
pub(crate) fn spread_grid(groups: u32, max_per_dim: u32) -> (u32, u32) {
    let row = max_per_dim - max_per_dim % SPREAD;
    let groups = groups.div_ceil(SPREAD) * SPREAD;
    if groups <= row {
        (groups, 1)
    } else {
        (row, groups.div_ceil(row))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WGSL `spread_index`'s block of workgroup `w` in a grid of `g`.
    fn spread_block(w: u32, g: (u32, u32)) -> u32 {
        let per_stripe = g.0 * g.1 / SPREAD;
        (w % SPREAD) * per_stripe + w / SPREAD
    }

    #[test]
    fn spread_dispatches_cover_every_block_once_and_mix_the_range() {
        for (groups, max) in [
            (1, 65535),
            (15, 65535),
            (17, 65535),
            (1563, 65535),
            (70000, 65535),
            (100, 40),
        ] {
            let g = spread_grid(groups, max);
            assert!(g.0 <= max && g.0.is_multiple_of(SPREAD), "{groups}: {g:?}");
            let total = g.0 * g.1;
            assert!(total >= groups && total.is_multiple_of(SPREAD));
            let mut seen = vec![false; total as usize];
            for w in 0..total {
                let b = spread_block(w, g) as usize;
                assert!(!seen[b], "{groups}: block {b} twice");
                seen[b] = true;
            }
            // The first half of the workgroups (one of two threads on a
            // software adapter) reaches the last sixteenth of the blocks.
            if total >= 2 * SPREAD {
                let last = (0..total / 2).map(|w| spread_block(w, g)).max().unwrap();
                assert!(
                    last >= total - total / SPREAD,
                    "{groups}: {last} of {total}"
                );
            }
        }
    }
}
