//! Headless rendering: simulate, draw into a texture, read it back, write a
//! PNG. The same pipelines and shaders as the window.

use std::path::Path;

use super::RenderError;
use super::camera::Camera;
use super::renderer::{DrawOptions, FrameView, Renderer};
use super::topology::Topology;
use crate::gpu::{GpuContext, GpuSolver, SolverError};
use crate::world::World;

/// Format of offscreen targets (colours are written sRGB-encoded).
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// An 8-bit RGBA image, rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

impl RgbaImage {
    /// Writes the image as an 8-bit RGBA PNG.
    pub fn write_png(&self, path: &Path) -> Result<(), RenderError> {
        let file = std::fs::File::create(path).map_err(|e| RenderError::io(path, e))?;
        let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder
            .write_header()
            .map_err(|e| RenderError::png(path, e))?;
        writer
            .write_image_data(&self.pixels)
            .map_err(|e| RenderError::png(path, e))?;
        writer.finish().map_err(|e| RenderError::png(path, e))
    }

    /// Reads an 8-bit RGB or RGBA PNG.
    pub fn read_png(path: &Path) -> Result<Self, RenderError> {
        let file = std::fs::File::open(path).map_err(|e| RenderError::io(path, e))?;
        let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().map_err(|e| RenderError::png(path, e))?;
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| RenderError::Format(format!("{}: image too large", path.display())))?;
        let mut buf = vec![0; size];
        let info = reader
            .next_frame(&mut buf)
            .map_err(|e| RenderError::png(path, e))?;
        buf.truncate(info.buffer_size());
        let pixels = match (info.color_type, info.bit_depth) {
            (png::ColorType::Rgba, png::BitDepth::Eight) => buf,
            (png::ColorType::Rgb, png::BitDepth::Eight) => buf
                .chunks_exact(3)
                .flat_map(|c| [c[0], c[1], c[2], 255])
                .collect(),
            (c, d) => {
                return Err(RenderError::Format(format!(
                    "{}: {c:?} {d:?} PNG, expected 8-bit RGB or RGBA",
                    path.display()
                )));
            }
        };
        Ok(Self {
            width: info.width,
            height: info.height,
            pixels,
        })
    }
}

/// How [`render_png`] draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderOptions {
    pub draw: DrawOptions,
    /// The view; `None` fits the world as it is after simulating
    /// ([`Camera::fit_world`] on the state read back once).
    pub camera: Option<Camera>,
    /// Samples per pixel: 1, or 4 for multisampled anti-aliasing.
    pub msaa: u32,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            draw: DrawOptions::default(),
            camera: None,
            msaa: 4,
        }
    }
}

/// Steps per command buffer when simulating ahead of a render.
const STEPS_PER_SUBMIT: u32 = 30;

/// Simulates `world` for `steps` steps on a headless device, draws it at
/// `size` pixels and writes a PNG to `out`.
pub fn render_png(
    world: &World,
    steps: u32,
    size: (u32, u32),
    out: &Path,
    opts: &RenderOptions,
) -> Result<(), RenderError> {
    let ctx = GpuContext::new_headless()?;
    let image = simulate_and_render(&ctx.device, &ctx.queue, world, steps, size, opts)?;
    image.write_png(out)
}

/// [`render_png`] on the caller's device, returning the image.
pub fn simulate_and_render(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    world: &World,
    steps: u32,
    size: (u32, u32),
    opts: &RenderOptions,
) -> Result<RgbaImage, RenderError> {
    // What can be refused is refused before the simulation runs.
    let mut renderer = Renderer::new(device, queue, OFFSCREEN_FORMAT, opts.msaa)?;
    if let Some(c) = &opts.camera {
        c.check().map_err(RenderError::BadCamera)?;
    }
    let mut solver = GpuSolver::new(device, queue, world)?;
    let mut left = steps;
    while left > 0 {
        let n = left.min(STEPS_PER_SUBMIT);
        solver.step(device, queue, n)?;
        left -= n;
    }
    let camera = match opts.camera {
        Some(c) => c,
        None => {
            let state = solver.read_state(device, queue)?;
            // A diverged state is not bad input: say what happened (the
            // world would refuse it as a non-finite point).
            let finite = |v: &[glam::Vec2]| v.iter().all(|x| x.is_finite());
            if !finite(state.positions()) || !finite(state.velocities()) {
                return Err(RenderError::Diverged { steps });
            }
            let mut now = world.clone();
            now.set_state(state.positions(), state.velocities())?;
            Camera::fit_world(&now, size)
        }
    };
    let mut encoder = device.create_command_encoder(&Default::default());
    renderer.set_scene(&mut encoder, &solver, &Topology::from_world(world))?;
    queue.submit([encoder.finish()]);
    render_image(&mut renderer, &FrameView::still(camera, size), &opts.draw)
}

/// Draws the renderer's scene into a new texture of `frame.size` and reads
/// it back (waits for the GPU), on the renderer's device and queue. The
/// renderer must use [`OFFSCREEN_FORMAT`].
pub fn render_image(
    renderer: &mut Renderer,
    frame: &FrameView,
    opts: &DrawOptions,
) -> Result<RgbaImage, RenderError> {
    let (device, queue) = (&renderer.device.clone(), &renderer.queue.clone());
    let (width, height) = frame.size;
    let max = device.limits().max_texture_dimension_2d;
    if width == 0 || height == 0 || width > max || height > max {
        return Err(RenderError::BadSize { width, height, max });
    }
    frame.camera.check().map_err(RenderError::BadCamera)?;
    let row = width * 4;
    let padded_row =
        row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let staging_bytes = padded_row as u64 * height as u64;
    let limit = device.limits().max_buffer_size;
    if staging_bytes > limit {
        return Err(RenderError::Solver(SolverError::TooLarge {
            buffer: "image readback",
            bytes: staging_bytes,
            limit,
            limit_name: "max_buffer_size",
        }));
    }
    if renderer.format() != OFFSCREEN_FORMAT {
        return Err(RenderError::Format(format!(
            "renderer draws {:?}, offscreen images are {OFFSCREEN_FORMAT:?}",
            renderer.format()
        )));
    }
    let extent = wgpu::Extent3d {
        width,
        height,
        depth_or_array_layers: 1,
    };
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("softbody offscreen"),
        size: extent,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: OFFSCREEN_FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("softbody offscreen readback"),
        size: staging_bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    let view = texture.create_view(&Default::default());
    renderer.draw(&mut encoder, &view, frame, opts, None);
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture: &texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &staging,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded_row),
                rows_per_image: Some(height),
            },
        },
        extent,
    );
    queue.submit([encoder.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, move |r| drop(tx.send(r)));
    let readback = |e: String| RenderError::Readback(e);
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| readback(e.to_string()))?;
    rx.recv()
        .map_err(|e| readback(e.to_string()))?
        .map_err(|e| readback(e.to_string()))?;
    let mut pixels = Vec::with_capacity((row * height) as usize);
    {
        let data = staging
            .slice(..)
            .get_mapped_range()
            .map_err(|e| readback(e.to_string()))?;
        for r in data.chunks_exact(padded_row as usize) {
            pixels.extend_from_slice(&r[..row as usize]);
        }
    }
    staging.unmap();
    Ok(RgbaImage {
        width,
        height,
        pixels,
    })
}
