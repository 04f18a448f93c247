//! The overlay in a layer of its own: egui's meshes are drawn into a
//! texture when they change, and each frame composites that texture over
//! the scene within the overlay's bounds (`shaders/render/overlay.wgsl`).
//! On a CPU adapter the overlay's text and widgets cost about 7 ms of
//! fragments a frame, about what
//! simulating and drawing a sleeping pile of 2,000 bodies leaves of a
//! 25 fps frame; one textured rectangle costs a fraction of that. The
//! overlay's numbers change a few times a second (`OVERLAY_STATS_PERIOD`),
//! so most frames only composite.

use egui::epaint::{ClippedPrimitive, Primitive};

/// The layer's texture and what samples it.
struct Layer {
    size: (u32, u32),
    view: wgpu::TextureView,
    bind: wgpu::BindGroup,
}

/// egui drawn into a texture when its meshes change, composited every
/// frame.
pub struct OverlayLayer {
    format: wgpu::TextureFormat,
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::RenderPipeline,
    layer: Option<Layer>,
    /// The meshes the layer holds, the pixels per point they were drawn
    /// at, and their bounds in pixels.
    drawn: Vec<ClippedPrimitive>,
    drawn_ppp: f32,
    bounds: Option<PixelRect>,
}

/// A rectangle of whole pixels: `x`, `y` (top left), width, height.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelRect {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

impl OverlayLayer {
    /// A layer for targets of `format` (the one egui's renderer draws in).
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let module = crate::render::shaders::module(device, "overlay");
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("softbody overlay layer"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("softbody overlay layer"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        // egui's colours are premultiplied: the layer goes over the scene
        // as egui's own meshes would have.
        let over = wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
            operation: wgpu::BlendOperation::Add,
        };
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("softbody overlay layer"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_layer"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_layer"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: Some(wgpu::BlendState {
                        color: over,
                        alpha: over,
                    }),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            multiview_mask: None,
            cache: None,
        });
        Self {
            format,
            layout,
            pipeline,
            layer: None,
            drawn: Vec::new(),
            drawn_ppp: 0.0,
            bounds: None,
        }
    }

    /// Records the overlay over `target` (of `screen`'s size): egui's
    /// `paint` is drawn into the layer first when it differs from what the
    /// layer holds, when `textures_changed` (egui's textures were updated
    /// this frame) or when the size or the pixels per point changed.
    /// Returns egui's command buffers, to submit before `encoder`.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        egui: &mut egui_wgpu::Renderer,
        paint: &[ClippedPrimitive],
        screen: &egui_wgpu::ScreenDescriptor,
        textures_changed: bool,
        target: &wgpu::TextureView,
    ) -> Vec<wgpu::CommandBuffer> {
        let size = (screen.size_in_pixels[0], screen.size_in_pixels[1]);
        if paint.is_empty() || size.0 == 0 || size.1 == 0 {
            self.drawn.clear();
            self.bounds = None;
            return Vec::new();
        }
        let resized = self.layer.as_ref().is_none_or(|l| l.size != size);
        if resized {
            self.layer = Some(self.make_layer(device, size));
        }
        let mut extra = Vec::new();
        let rescaled = self.drawn_ppp != screen.pixels_per_point;
        if resized || rescaled || textures_changed || !same_meshes(&self.drawn, paint) {
            extra = egui.update_buffers(device, queue, encoder, paint, screen);
            let layer = self.layer.as_ref().expect("made above");
            let clear = wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT);
            let mut pass = color_pass(
                encoder,
                &layer.view,
                "softbody overlay into its layer",
                clear,
            )
            .forget_lifetime();
            egui.render(&mut pass, paint, screen);
            drop(pass);
            self.drawn = paint.to_vec();
            self.drawn_ppp = screen.pixels_per_point;
            self.bounds = pixel_bounds(paint, screen.pixels_per_point, size);
        }
        if let (Some(layer), Some(r)) = (&self.layer, self.bounds) {
            let mut pass = color_pass(encoder, target, "softbody overlay", wgpu::LoadOp::Load);
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &layer.bind, &[]);
            pass.set_scissor_rect(r.x, r.y, r.w, r.h);
            pass.draw(0..3, 0..1);
        }
        extra
    }

    fn make_layer(&self, device: &wgpu::Device, size: (u32, u32)) -> Layer {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("softbody overlay layer"),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: self.format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("softbody overlay layer"),
            layout: &self.layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            }],
        });
        Layer { size, view, bind }
    }
}

/// A render pass into `view` alone, loading it as `load` says.
fn color_pass<'a>(
    encoder: &'a mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    label: &str,
    load: wgpu::LoadOp<wgpu::Color>,
) -> wgpu::RenderPass<'a> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load,
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// Whether two frames' primitives draw the same: the same meshes under
/// the same clip rectangles. A paint callback never counts as the same
/// (it may draw anything).
pub fn same_meshes(a: &[ClippedPrimitive], b: &[ClippedPrimitive]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            a.clip_rect == b.clip_rect
                && matches!((&a.primitive, &b.primitive), (Primitive::Mesh(x), Primitive::Mesh(y)) if x == y)
        })
}

/// The pixels the primitives can cover on a target of `size` pixels:
/// each mesh's vertex bounds within its clip rectangle, scaled by
/// `pixels_per_point`, widened to whole pixels; a paint callback covers
/// its clip rectangle. `None` when they cover no pixel.
pub fn pixel_bounds(
    paint: &[ClippedPrimitive],
    pixels_per_point: f32,
    size: (u32, u32),
) -> Option<PixelRect> {
    let mut covered = egui::Rect::NOTHING;
    for p in paint {
        let area = match &p.primitive {
            Primitive::Mesh(m) => m.calc_bounds().intersect(p.clip_rect),
            Primitive::Callback(_) => p.clip_rect,
        };
        if area.is_positive() {
            covered = covered.union(area);
        }
    }
    if !covered.is_positive() {
        return None;
    }
    let px = |v: f32, max: u32| (v * pixels_per_point).clamp(0.0, max as f32);
    let (x0, y0) = (
        px(covered.min.x, size.0).floor(),
        px(covered.min.y, size.1).floor(),
    );
    let (x1, y1) = (
        px(covered.max.x, size.0).ceil(),
        px(covered.max.y, size.1).ceil(),
    );
    let (x, y) = (x0 as u32, y0 as u32);
    let (w, h) = (x1 as u32 - x, y1 as u32 - y);
    (w > 0 && h > 0).then_some(PixelRect { x, y, w, h })
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::{Color32, Pos2, Rect, pos2};

    fn quad(min: Pos2, max: Pos2, clip: Rect) -> ClippedPrimitive {
        let mut m = egui::Mesh::default();
        m.add_colored_rect(Rect::from_min_max(min, max), Color32::WHITE);
        ClippedPrimitive {
            clip_rect: clip,
            primitive: Primitive::Mesh(m),
        }
    }

    #[test]
    fn bounds_are_the_meshes_within_their_clips_in_whole_pixels() {
        let everywhere = Rect::EVERYTHING;
        let paint = [
            quad(pos2(10.2, 20.0), pos2(30.0, 40.5), everywhere),
            // Clipped to x 50..60 of 40..100.
            quad(
                pos2(40.0, 5.0),
                pos2(100.0, 8.0),
                Rect::from_min_max(pos2(50.0, 0.0), pos2(60.0, 10.0)),
            ),
        ];
        // 2 pixels per point: x 20.4..120, y 10..81.
        assert_eq!(
            pixel_bounds(&paint, 2.0, (1000, 1000)),
            Some(PixelRect {
                x: 20,
                y: 10,
                w: 100,
                h: 71
            })
        );
        // The target's edge clamps them.
        assert_eq!(
            pixel_bounds(&paint, 2.0, (100, 50)),
            Some(PixelRect {
                x: 20,
                y: 10,
                w: 80,
                h: 40
            })
        );
    }

    #[test]
    fn nothing_visible_has_no_bounds() {
        let off = quad(
            pos2(10.0, 10.0),
            pos2(20.0, 20.0),
            Rect::from_min_max(pos2(50.0, 50.0), pos2(60.0, 60.0)),
        );
        assert_eq!(pixel_bounds(&[off], 1.0, (100, 100)), None);
        assert_eq!(pixel_bounds(&[], 1.0, (100, 100)), None);
        let beyond = quad(pos2(200.0, 200.0), pos2(300.0, 300.0), Rect::EVERYTHING);
        assert_eq!(pixel_bounds(&[beyond], 1.0, (100, 100)), None);
    }

    #[test]
    fn meshes_are_the_same_only_when_every_vertex_and_clip_is() {
        let a = quad(pos2(0.0, 0.0), pos2(1.0, 1.0), Rect::EVERYTHING);
        let moved = quad(pos2(0.0, 0.0), pos2(1.0, 2.0), Rect::EVERYTHING);
        let clipped = quad(
            pos2(0.0, 0.0),
            pos2(1.0, 1.0),
            Rect::from_min_max(pos2(0.0, 0.0), pos2(5.0, 5.0)),
        );
        let one = std::slice::from_ref(&a);
        assert!(same_meshes(one, one));
        assert!(!same_meshes(one, &[moved]));
        assert!(!same_meshes(one, &[clipped]));
        assert!(!same_meshes(one, &[a.clone(), a.clone()]));
    }
}
