//! The renderer: one bind group over the solver's buffers and the
//! topology, one pipeline per layer, drawn in one render pass.

use bytemuck::{Pod, Zeroable};
use glam::Vec2;
use wgpu::util::DeviceExt;

use super::RenderError;
use super::camera::Camera;
use super::shaders;
use super::topology::{OUTLINE_EDGE, Topology};
use crate::gpu::GpuSolver;

/// Point index meaning "none" in [`ViewUniform::highlight`].
pub const NONE: u32 = u32::MAX;

/// The background, sRGB-encoded.
pub const BACKGROUND: wgpu::Color = wgpu::Color {
    r: 0.045,
    g: 0.055,
    b: 0.095,
    a: 1.0,
};

/// What a body is coloured by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ColorMode {
    /// Its kind (box, ship cell, wheel, blob), a little lighter or darker
    /// per body.
    #[default]
    Body,
    /// The speed of each point, blue (still) to red (`max_speed` and up).
    Speed,
}

/// Which layers are drawn, and how.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawOptions {
    /// Bodies filled (translucent: the engine has no body-body collisions,
    /// so bodies overlap and show through each other).
    pub fill: bool,
    /// Body outlines.
    pub outlines: bool,
    /// Springs, coloured by strain (red stretched, blue compressed).
    pub springs: bool,
    /// Points as small disks.
    pub points: bool,
    /// Colour of fills and outlines.
    pub color: ColorMode,
    /// Speed drawn at the hot end of the speed colours, m/s.
    pub max_speed: f32,
    /// Drawn radius of a point, m (never less than 1.5 pixels).
    pub point_radius: f32,
    /// Opacity of the fill, `0..=1`.
    pub fill_alpha: f32,
}

impl DrawOptions {
    /// Above this many bodies, [`DrawOptions::for_bodies`] leaves springs
    /// and points out.
    pub const CLUTTER_BODIES: usize = 500;

    /// The layers worth drawing for a world of `bodies` bodies: all of
    /// them, but without springs and points above
    /// [`CLUTTER_BODIES`](Self::CLUTTER_BODIES), where they are clutter at
    /// a zoom that shows the whole scene (the window's keys 3 and 4 bring
    /// them back).
    pub fn for_bodies(bodies: usize) -> Self {
        let many = bodies > Self::CLUTTER_BODIES;
        Self {
            springs: !many,
            points: !many,
            ..Self::default()
        }
    }
}

impl Default for DrawOptions {
    fn default() -> Self {
        Self {
            fill: true,
            outlines: true,
            springs: true,
            points: true,
            color: ColorMode::Body,
            max_speed: 15.0,
            point_radius: 0.04,
            fill_alpha: 0.8,
        }
    }
}

/// The `View` uniform of `shaders/render/draw.wgsl`, field by field.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ViewUniform {
    pub center: [f32; 2],
    pub scale: [f32; 2],
    pub alpha: f32,
    pub metres_per_pixel: f32,
    pub point_radius: f32,
    pub max_speed: f32,
    pub color_mode: u32,
    pub highlight: u32,
    pub num_planes: u32,
    pub fill_alpha: f32,
    pub drag_target: [f32; 2],
    pub grid_first: [f32; 2],
    pub grid_step: f32,
    pub grid_columns: u32,
    pub draw_fill: u32,
    pub draw_outlines: u32,
    pub _pad: [u32; 2],
}

/// Spacing of grid lines on screen: the smallest power of ten of metres at
/// least this many pixels apart.
pub const GRID_MIN_PIXELS: f32 = 24.0;

/// Per-frame inputs that are not drawing options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameView {
    pub camera: Camera,
    /// Target size in pixels.
    pub size: (u32, u32),
    /// Interpolation between the previous and the current step, `0..=1`
    /// (the accumulator's remainder over `dt`).
    pub alpha: f32,
    /// A point being dragged toward a target: drawn highlighted, with a
    /// line to the target.
    pub drag: Option<(u32, Vec2)>,
}

impl FrameView {
    /// The current state (no interpolation), nothing dragged.
    pub fn still(camera: Camera, size: (u32, u32)) -> Self {
        Self {
            camera,
            size,
            alpha: 1.0,
            drag: None,
        }
    }
}

/// The scene's GPU resources: the previous-state buffer, the fill
/// triangles, and the bind group over them and the solver's buffers.
struct Scene {
    /// The solver's edit generation when the scene was set.
    edits: u64,
    /// The solver's state buffer, which `prev` copies.
    state: wgpu::Buffer,
    prev: wgpu::Buffer,
    bind: wgpu::BindGroup,
    fill_vertices: u32,
    spring_vertices: u32,
    num_points: u32,
    num_planets: u32,
    num_planes: u32,
    num_segments: u32,
    /// The fill triangles' colours (binding 5).
    colors: wgpu::Buffer,
}

struct Pipelines {
    grid: wgpu::RenderPipeline,
    planes: wgpu::RenderPipeline,
    segments: wgpu::RenderPipeline,
    planets: wgpu::RenderPipeline,
    fill: wgpu::RenderPipeline,
    springs: wgpu::RenderPipeline,
    points: wgpu::RenderPipeline,
    drag: wgpu::RenderPipeline,
}

/// Draws a [`GpuSolver`]'s world straight from its buffers, into the
/// caller's encoder and target. Like the solver it keeps (cheap handles to)
/// the device and queue it was made with, and binds only a solver made with
/// the same pair: the bind group over another device's buffers would fail
/// inside wgpu.
pub struct Renderer {
    pub(super) device: wgpu::Device,
    pub(super) queue: wgpu::Queue,
    format: wgpu::TextureFormat,
    sample_count: u32,
    layout: wgpu::BindGroupLayout,
    pipelines: Pipelines,
    view: wgpu::Buffer,
    scene: Option<Scene>,
    msaa: Option<(wgpu::TextureView, (u32, u32))>,
}

fn storage_entry(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A storage buffer with `data`, or one zeroed element when empty (WGSL
/// arrays cannot be empty).
fn storage_buffer<T: Pod>(device: &wgpu::Device, label: &str, data: &[T]) -> wgpu::Buffer {
    let zero = vec![0u8; std::mem::size_of::<T>().max(4)];
    let contents = if data.is_empty() {
        &zero[..]
    } else {
        bytemuck::cast_slice(data)
    };
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        // Writable: the fill's colours change with `set_body_colors`.
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    })
}

/// `x` clamped to `[0, 1]`, and 1 for NaN (which `clamp` keeps).
fn unit_or_one(x: f32) -> f32 {
    if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) }
}

impl Renderer {
    /// Pipelines for targets of `format` drawn with `sample_count` samples
    /// (1, or 4 for multisampled anti-aliasing; the renderer resolves into
    /// the target). Colours are written sRGB-encoded, so use a non-sRGB
    /// format (`Rgba8Unorm`, `Bgra8Unorm`), as egui does. Another sample
    /// count is [`RenderError::Msaa`].
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        format: wgpu::TextureFormat,
        sample_count: u32,
    ) -> Result<Self, RenderError> {
        if !matches!(sample_count, 1 | 4) {
            return Err(RenderError::Msaa(sample_count));
        }
        use wgpu::ShaderStages as S;
        let vf = S::VERTEX | S::FRAGMENT;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("softbody draw"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: vf,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage_entry(1, S::VERTEX),
                storage_entry(2, S::VERTEX),
                storage_entry(3, S::VERTEX),
                storage_entry(4, S::VERTEX),
                storage_entry(5, S::VERTEX),
                storage_entry(6, S::VERTEX),
                storage_entry(7, S::VERTEX),
                storage_entry(8, S::VERTEX),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("softbody draw"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = shaders::module(device, "draw");
        let make = |vs: &str, fs: &str, topology: wgpu::PrimitiveTopology, blend: bool| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(vs),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState {
                    topology,
                    ..Default::default()
                },
                depth_stencil: None,
                multisample: wgpu::MultisampleState {
                    count: sample_count,
                    ..Default::default()
                },
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend: blend.then_some(wgpu::BlendState::ALPHA_BLENDING),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        use wgpu::PrimitiveTopology::{LineList, TriangleList};
        let pipelines = Pipelines {
            grid: make("vs_grid", "fs_color", LineList, false),
            planes: make("vs_plane", "fs_plane", TriangleList, true),
            segments: make("vs_segment", "fs_plane", TriangleList, true),
            planets: make("vs_planet", "fs_planet", TriangleList, true),
            fill: make("vs_fill", "fs_fill", TriangleList, true),
            springs: make("vs_spring", "fs_color", LineList, true),
            points: make("vs_point", "fs_point", TriangleList, true),
            drag: make("vs_drag", "fs_color", LineList, true),
        };
        let view = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("softbody view"),
            size: std::mem::size_of::<ViewUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Ok(Self {
            device: device.clone(),
            queue: queue.clone(),
            format,
            sample_count,
            layout,
            pipelines,
            view,
            scene: None,
            msaa: None,
        })
    }

    /// The target format the pipelines were built for.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// Binds a solver and the topology of its world; call again whenever
    /// the solver is rebuilt or edited (its
    /// [`edit_generation`](GpuSolver::edit_generation) changes). The
    /// previous state starts equal to the current one (the copy is
    /// recorded into `encoder`). A topology of another world (other point
    /// or member counts) is [`RenderError::Topology`]; a solver on another
    /// device or queue than the renderer's is
    /// [`SolverError::WrongDevice`](crate::gpu::SolverError::WrongDevice).
    pub fn set_scene(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        solver: &GpuSolver,
        topology: &Topology,
    ) -> Result<(), RenderError> {
        solver.check_context("Renderer::set_scene", Some(&self.device), Some(&self.queue))?;
        let device = &self.device;
        let members = solver.packed().members.len() as u32;
        if topology.num_points as usize != solver.num_points() {
            return Err(RenderError::Topology(format!(
                "{} points, the solver has {}",
                topology.num_points,
                solver.num_points()
            )));
        }
        let fill = (topology.fill_at(&solver.packed().bodies)).map_err(RenderError::Topology)?;
        if let Some(&e) = fill.iter().find(|&&e| e & !OUTLINE_EDGE >= members) {
            return Err(RenderError::Topology(format!(
                "fill corner at member {}, the solver has {members} members",
                e & !OUTLINE_EDGE
            )));
        }
        let pos = solver.state_buffer();
        let prev = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("softbody previous state"),
            size: pos.size(),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let fill = storage_buffer(device, "softbody fill", &fill);
        let colors = storage_buffer(device, "softbody fill colours", &topology.fill_colors);
        let springs = storage_buffer(device, "softbody springs", &topology.springs);
        let buffers = [
            &self.view,
            pos,
            &prev,
            &springs,
            solver.members_buffer(),
            &colors,
        ];
        let mut entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        // The planets and half-planes from the solver's own table, where
        // moving ones are posed every substep, and its terrain.
        for (binding, buffer) in [
            (6, solver.colliders_buffer()),
            (7, solver.terrain_segments_buffer()),
            (8, &fill),
        ] {
            entries.push(wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            });
        }
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("softbody draw"),
            layout: &self.layout,
            entries: &entries,
        });
        encoder.copy_buffer_to_buffer(pos, 0, &prev, 0, pos.size());
        self.scene = Some(Scene {
            edits: solver.edit_generation(),
            state: pos.clone(),
            prev,
            bind,
            fill_vertices: topology.fill.len() as u32,
            spring_vertices: 2 * topology.springs.len() as u32,
            num_points: topology.num_points,
            num_planets: topology.planets.len() as u32,
            num_planes: topology.planes.len() as u32,
            num_segments: solver.packed().terrain.segments.len() as u32,
            colors,
        });
        Ok(())
    }

    /// Draws each body in its own colour from now on: `body_colors[b]`
    /// for body `b` (packed RGBA8, sRGB, red in the low byte, as
    /// [`Topology::body_colors`]), e.g. to light the bodies a contact
    /// event names. 4 bytes per fill triangle written, nothing read back.
    /// [`RenderError::Topology`] without a scene or for another count of
    /// colours than `topology`'s bodies.
    pub fn set_body_colors(
        &self,
        topology: &Topology,
        body_colors: &[u32],
    ) -> Result<(), RenderError> {
        let scene = self
            .scene
            .as_ref()
            .ok_or_else(|| RenderError::Topology("no scene bound".into()))?;
        let fill = topology.fill_colors_for(body_colors).ok_or_else(|| {
            RenderError::Topology(format!(
                "{} colours for {} bodies",
                body_colors.len(),
                topology.fill_counts.len()
            ))
        })?;
        if !fill.is_empty() && fill.len() as u64 * 4 <= scene.colors.size() {
            self.queue
                .write_buffer(&scene.colors, 0, bytemuck::cast_slice(&fill));
        }
        Ok(())
    }

    /// Records the copy of the solver's current state into the
    /// previous-state buffer. Record it just before the last step of a
    /// frame: the frame then draws between the last two states. A solver
    /// edited since [`set_scene`](Self::set_scene) is
    /// [`RenderError::StaleScene`] (its buffers may have outgrown the
    /// copy, and the scene's topology is another world's).
    pub fn snapshot_previous(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        solver: &GpuSolver,
    ) -> Result<(), RenderError> {
        if let Some(scene) = &self.scene {
            solver.check_context(
                "Renderer::snapshot_previous",
                Some(&self.device),
                Some(&self.queue),
            )?;
            if scene.edits != solver.edit_generation() {
                return Err(RenderError::StaleScene {
                    bound: scene.edits,
                    now: solver.edit_generation(),
                });
            }
            let pos = solver.state_buffer();
            if *pos != scene.state {
                return Err(RenderError::Topology(
                    "the scene was set for another solver".into(),
                ));
            }
            encoder.copy_buffer_to_buffer(pos, 0, &scene.prev, 0, pos.size());
        }
        Ok(())
    }

    /// Whether the scene was set from `solver` as it is now (no edit
    /// since [`set_scene`](Self::set_scene)).
    pub fn scene_is_current(&self, solver: &GpuSolver) -> bool {
        self.scene.as_ref().is_some_and(|s| {
            s.edits == solver.edit_generation() && s.state == *solver.state_buffer()
        })
    }

    /// The uniform for a frame.
    pub fn view_uniform(&self, frame: &FrameView, opts: &DrawOptions) -> ViewUniform {
        let (w, h) = (frame.size.0.max(1) as f32, frame.size.1.max(1) as f32);
        let ppm = frame.camera.pixels_per_metre;
        let (highlight, target) = frame.drag.map_or((NONE, Vec2::ZERO), |(i, t)| (i, t));
        let step = 10f32.powf((GRID_MIN_PIXELS / ppm).log10().ceil());
        let half = Vec2::new(w, h) * 0.5 / ppm;
        let first = ((frame.camera.center - half) / step).floor() * step;
        let columns = (2.0 * half.x / step).ceil() as u32 + 1;
        ViewUniform {
            center: frame.camera.center.to_array(),
            scale: [2.0 * ppm / w, 2.0 * ppm / h],
            // NaN (e.g. an accumulator over a zero dt) would make every
            // position NaN: the current state instead.
            alpha: unit_or_one(frame.alpha),
            metres_per_pixel: 1.0 / ppm,
            point_radius: opts.point_radius,
            max_speed: opts.max_speed.max(1e-6),
            color_mode: match opts.color {
                ColorMode::Body => 0,
                ColorMode::Speed => 1,
            },
            highlight,
            num_planes: self.scene.as_ref().map_or(0, |s| s.num_planes),
            fill_alpha: unit_or_one(opts.fill_alpha),
            drag_target: target.to_array(),
            grid_first: first.to_array(),
            grid_step: step,
            grid_columns: columns,
            draw_fill: opts.fill as u32,
            draw_outlines: opts.outlines as u32,
            _pad: [0; 2],
        }
    }

    /// Records one render pass drawing the scene into `target` (cleared
    /// first). `target` must have the size in `frame` and the renderer's
    /// format. With multisampling the renderer draws into its own
    /// multisampled texture and resolves into `target`.
    pub fn draw(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        frame: &FrameView,
        opts: &DrawOptions,
        timestamp_writes: Option<wgpu::RenderPassTimestampWrites>,
    ) {
        self.queue.write_buffer(
            &self.view,
            0,
            bytemuck::bytes_of(&self.view_uniform(frame, opts)),
        );
        let size = (frame.size.0.max(1), frame.size.1.max(1));
        if self.sample_count > 1 && self.msaa.as_ref().is_none_or(|(_, s)| *s != size) {
            let texture = self.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("softbody msaa"),
                size: wgpu::Extent3d {
                    width: size.0,
                    height: size.1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: self.sample_count,
                dimension: wgpu::TextureDimension::D2,
                format: self.format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            });
            self.msaa = Some((texture.create_view(&Default::default()), size));
        }
        let (view, resolve_target) = match &self.msaa {
            Some((msaa, _)) if self.sample_count > 1 => (msaa, Some(target)),
            _ => (target, None),
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("softbody draw"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(BACKGROUND),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        let Some(scene) = &self.scene else {
            return;
        };
        let p = &self.pipelines;
        let u = self.view_uniform(frame, opts);
        let rows = (2.0 / u.scale[1] / u.grid_step).ceil() as u32 + 1;
        pass.set_bind_group(0, &scene.bind, &[]);
        pass.set_pipeline(&p.grid);
        pass.draw(0..2 * (u.grid_columns + rows), 0..1);
        if scene.num_planes > 0 {
            pass.set_pipeline(&p.planes);
            pass.draw(0..6, 0..scene.num_planes);
        }
        if scene.num_segments > 0 {
            pass.set_pipeline(&p.segments);
            pass.draw(0..6, 0..scene.num_segments);
        }
        if scene.num_planets > 0 {
            pass.set_pipeline(&p.planets);
            pass.draw(0..6, 0..scene.num_planets);
        }
        if (opts.fill || opts.outlines) && scene.fill_vertices > 0 {
            pass.set_pipeline(&p.fill);
            pass.draw(0..scene.fill_vertices, 0..1);
        }
        if opts.springs && scene.spring_vertices > 0 {
            pass.set_pipeline(&p.springs);
            pass.draw(0..scene.spring_vertices, 0..1);
        }
        if opts.points && scene.num_points > 0 {
            pass.set_pipeline(&p.points);
            pass.draw(0..3, 0..scene.num_points);
        }
        if let Some((point, _)) = frame.drag
            && point < scene.num_points
        {
            if !opts.points {
                pass.set_pipeline(&p.points);
                pass.draw(0..3, point..point + 1);
            }
            pass.set_pipeline(&p.drag);
            pass.draw(0..2, 0..1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_bodies_are_drawn_without_springs_and_points() {
        let few = DrawOptions::for_bodies(DrawOptions::CLUTTER_BODIES);
        assert_eq!(few, DrawOptions::default());
        let many = DrawOptions::for_bodies(DrawOptions::CLUTTER_BODIES + 1);
        assert!(!many.springs && !many.points && many.fill && many.outlines);
    }
}
