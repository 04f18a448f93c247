//! Embedding the solver in a renderer of your own.
//!
//! This program owns everything a host application would: the wgpu
//! instance, adapter, device and queue, an offscreen render target, its own
//! render pipelines and WGSL shaders (`examples/embed.wgsl`). The solver
//! only records compute passes into the program's command encoder, and the
//! render passes read the solver's buffers directly:
//!
//! - the state buffer as a vertex buffer (16-byte stride), with the solver's spring and
//!   body-edge index buffers, for lines;
//! - the state buffer as a storage buffer in a vertex shader, for one
//!   quad per point;
//! - the body-frames buffer as a storage buffer, for each body's rotation.
//!
//! Nothing is read back while it runs; at the end the picture is copied out
//! and written as a PNG.
//!
//!     cargo run --example embed -- [OUT.png]      (default embed.png)

use std::error::Error;

use softbody::prelude::*;
use wgpu::util::DeviceExt;

const WIDTH: u32 = 1024;
const HEIGHT: u32 = 640;
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const FRAMES: u32 = 150;

/// The example's uniform (WGSL `Style`), 48 bytes.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Style {
    scale: [f32; 2],
    offset: [f32; 2],
    color: [f32; 4],
    point_size: f32,
    _pad: [f32; 3],
}

fn scene() -> Result<(World, PointHandle), WorldError> {
    let mut world = World::default();
    world.add_plane(HalfPlane::floor(0.0))?;
    world.add_planet(Planet::new(Vec2::new(2.5, 1.2), 1.0))?;
    BoxGrid::new(4, 2, Vec2::splat(0.4))
        .center(Vec2::new(-2.5, 3.0))
        .rotation(0.3)
        .build(&mut world)?;
    Wheel::new(Vec2::new(2.2, 4.0), 0.5, 14).build(&mut world)?;
    Blob::new(Vec2::new(0.0, 2.0), 0.6, 20)
        // A soft blob: 3.5 Hz, lightly damped, so that it wobbles.
        .body_frequency(Frequency::new(3.5, 0.2))
        .build(&mut world)?;
    for i in 0..4 {
        BoxShape::new(Vec2::new(-0.5 + 0.7 * i as f32, 5.0), Vec2::splat(0.4))
            .rotation(0.4 * i as f32)
            .build(&mut world)?;
    }
    let rope = Rope::new(Vec2::new(-4.5, 4.5), Vec2::new(-2.5, 4.5), 12)
        .pin_first(true)
        .spring_frequency(Frequency::new(17.0, 0.1))
        .build(&mut world)?;
    Ok((world, rope.points[0]))
}

/// Line loops of the static colliders, in world coordinates.
fn collider_lines(world: &World) -> Vec<[f32; 2]> {
    let mut out = Vec::new();
    for p in world.planets() {
        let n = 64;
        for k in 0..n {
            for j in [k, k + 1] {
                let a = j as f32 / n as f32 * std::f32::consts::TAU;
                out.push((p.center + p.radius * Vec2::from_angle(a)).to_array());
            }
        }
    }
    for plane in world.planes() {
        let along = plane.normal.perp() * 100.0;
        let at = plane.normal * plane.offset;
        out.extend([(at - along).to_array(), (at + along).to_array()]);
    }
    out
}

fn main() -> Result<(), Box<dyn Error>> {
    // SAFETY: first thing in main, before any other thread starts.
    unsafe { softbody::gpu::quiet_display_probe() };
    let usage = "usage: cargo run --example embed -- [OUT.png]   (default embed.png)";
    let mut args = std::env::args().skip(1);
    let out_path = match (args.next(), args.next()) {
        (None, _) => "embed.png".to_string(),
        (Some(a), None) if a == "-h" || a == "--help" => {
            println!("{usage}");
            return Ok(());
        }
        (Some(a), None) if !a.starts_with('-') => a,
        _ => return Err(usage.into()),
    };

    // The host's own device: the solver needs softbody::gpu::required_limits().
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("embed"),
        required_limits: softbody::gpu::required_limits().using_resolution(adapter.limits()),
        ..Default::default()
    }))?;
    println!("adapter: {}", softbody::gpu::adapter_summary(&adapter));

    let (world, pin) = scene()?;
    let mut solver = GpuSolver::new(&device, &queue, &world)?;

    // World to clip space: x in [-5, 5], y from -0.5 up, square pixels.
    let sx = 2.0 / 10.0;
    let sy = sx * WIDTH as f32 / HEIGHT as f32;
    let style = |color: [f32; 4]| Style {
        scale: [sx, sy],
        offset: [0.0, -1.0 + 0.5 * sy],
        color,
        point_size: 0.035,
        _pad: [0.0; 3],
    };
    let shader = device.create_shader_module(wgpu::include_wgsl!("embed.wgsl"));
    let style_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("style"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }],
    });
    let storage = |binding| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let sim_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("solver buffers"),
        entries: &[storage(0), storage(1)],
    });
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("embed"),
        bind_group_layouts: &[Some(&style_layout), Some(&sim_layout)],
        immediate_size: 0,
    });
    let pipeline = |entry: &str, topology, buffers: &[Option<wgpu::VertexBufferLayout>]| {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(entry),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: FORMAT,
                    blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        })
    };
    let vec2_buffer = wgpu::VertexBufferLayout {
        array_stride: 8,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &wgpu::vertex_attr_array![0 => Float32x2],
    };
    let lines = pipeline(
        "line_vs",
        wgpu::PrimitiveTopology::LineList,
        &[Some(vec2_buffer)],
    );
    // The solver's state as a vertex buffer: 16 bytes per point, the
    // position first.
    let state_lines = pipeline(
        "line_vs",
        wgpu::PrimitiveTopology::LineList,
        &[Some(wgpu::VertexBufferLayout {
            array_stride: softbody::gpu::STATE_BYTES,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &wgpu::vertex_attr_array![0 => Float32x2],
        })],
    );
    let points = pipeline("point_vs", wgpu::PrimitiveTopology::TriangleList, &[]);
    let frames = pipeline("frame_vs", wgpu::PrimitiveTopology::LineList, &[]);

    let style_group = |color| {
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("style"),
            contents: bytemuck::bytes_of(&style(color)),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("style"),
            layout: &style_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            }],
        })
    };
    let grey = style_group([0.45, 0.5, 0.6, 1.0]);
    let spring_color = style_group([0.3, 0.75, 1.0, 0.9]);
    let outline_color = style_group([1.0, 0.85, 0.3, 1.0]);
    let point_color = style_group([1.0, 1.0, 1.0, 1.0]);
    let frame_color = style_group([1.0, 0.3, 0.4, 1.0]);
    // The solver's buffers, bound in our pipeline. Rebuild this bind group
    // whenever solver.buffer_generation() changes (an edit outgrew them).
    let sim_group = |s: &GpuSolver| {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("solver buffers"),
            layout: &sim_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: s.state_buffer().as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: s.frames_buffer().as_entire_binding(),
                },
            ],
        })
    };
    let mut sim_bind = sim_group(&solver);
    let mut bound_generation = solver.buffer_generation();

    let static_lines = collider_lines(&world);
    let static_vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("colliders"),
        contents: bytemuck::cast_slice(&static_lines),
        usage: wgpu::BufferUsages::VERTEX,
    });
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("frame"),
        size: wgpu::Extent3d {
            width: WIDTH,
            height: HEIGHT,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = target.create_view(&Default::default());

    for frame in 0..FRAMES {
        // Swing the rope's pinned end: 8 bytes written, nothing rebuilt.
        let t = frame as f32 / 60.0;
        solver.move_pinned_point(&queue, pin, Vec2::new(-4.5 + 0.6 * (3.0 * t).sin(), 4.5))?;
        if solver.buffer_generation() != bound_generation {
            sim_bind = sim_group(&solver);
            bound_generation = solver.buffer_generation();
        }

        let mut encoder = device.create_command_encoder(&Default::default());
        solver.record_step(&mut encoder);
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("draw"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: 0.02,
                            g: 0.025,
                            b: 0.04,
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(1, &sim_bind, &[]);

            pass.set_pipeline(&lines);
            pass.set_bind_group(0, &grey, &[]);
            pass.set_vertex_buffer(0, static_vertices.slice(..));
            pass.draw(0..static_lines.len() as u32, 0..1);

            // Springs and body outlines: the state as the vertex buffer,
            // the solver's index buffers as index buffers.
            pass.set_pipeline(&state_lines);
            pass.set_vertex_buffer(0, solver.state_buffer().slice(..));
            pass.set_bind_group(0, &spring_color, &[]);
            pass.set_index_buffer(
                solver.spring_index_buffer().slice(..),
                wgpu::IndexFormat::Uint32,
            );
            pass.draw_indexed(0..solver.spring_index_count(), 0, 0..1);
            pass.set_bind_group(0, &outline_color, &[]);
            pass.set_index_buffer(
                solver.body_edge_index_buffer().slice(..),
                wgpu::IndexFormat::Uint32,
            );
            pass.draw_indexed(0..solver.body_edge_index_count(), 0, 0..1);

            // Points and body frames: pulled from storage buffers.
            pass.set_pipeline(&points);
            pass.set_bind_group(0, &point_color, &[]);
            pass.draw(0..6, 0..solver.num_points() as u32);
            pass.set_pipeline(&frames);
            pass.set_bind_group(0, &frame_color, &[]);
            pass.draw(0..2, 0..solver.num_bodies() as u32);
        }
        queue.submit([encoder.finish()]);
    }

    // Only now does anything come back to the CPU: the picture.
    let bytes_per_row = WIDTH * 4; // a multiple of 256 for this width
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: (bytes_per_row * HEIGHT) as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row),
                rows_per_image: None,
            },
        },
        target.size(),
    );
    queue.submit([encoder.finish()]);
    readback
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let pixels = readback.slice(..).get_mapped_range()?.to_vec();

    let file = std::io::BufWriter::new(std::fs::File::create(&out_path)?);
    let mut png = png::Encoder::new(file, WIDTH, HEIGHT);
    png.set_color(png::ColorType::Rgba);
    png.set_depth(png::BitDepth::Eight);
    png.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
    png.write_header()?.write_image_data(&pixels)?;
    println!(
        "{} points, {} springs, {} bodies after {FRAMES} frames: wrote {out_path}",
        solver.num_points(),
        solver.spring_index_count() / 2,
        solver.num_bodies()
    );
    Ok(())
}
