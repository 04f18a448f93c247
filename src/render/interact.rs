//! Mouse interaction on the GPU: picking the point nearest to the cursor and
//! dragging it through a spring, both without reading the state back.
//!
//! - [`Picker`]: one workgroup finds the nearest point into an 8-byte buffer
//!   (`shaders/render/pick.wgsl`), copied to a mappable buffer and read back
//!   asynchronously: the answer arrives a frame or so later, the frame never
//!   waits for it.
//! - [`Dragger`]: before every step, one thread adds a damped spring's
//!   impulse toward the cursor to the dragged point's velocity, in the
//!   solver's velocity buffer (`shaders/render/drag.wgsl`). The per-frame
//!   CPU work is one 32-byte uniform write.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use bytemuck::{Pod, Zeroable};
use glam::Vec2;

use super::{RenderError, shaders};
use crate::error::{Item, WorldError};
use crate::gpu::GpuSolver;
use crate::gpu::shaders::bind_group;

/// The `PickQuery` uniform of `shaders/render/pick.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PickQuery {
    pub cursor: [f32; 2],
    pub num_points: u32,
    pub _pad: u32,
}

/// The `PickResult` of `shaders/render/pick.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PickResult {
    /// Nearest point, or `u32::MAX` for a world without points.
    pub point: u32,
    /// Its squared distance to the cursor, m^2.
    pub dist2: f32,
}

/// The `DragParams` uniform of `shaders/render/drag.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct DragParams {
    pub target_pos: [f32; 2],
    pub point: u32,
    pub enabled: u32,
    pub stiffness: f32,
    pub damping: f32,
    pub dt: f32,
    /// Points of the solver bound: the state buffer may hold more slots
    /// (capacity), which are no points.
    pub num_points: u32,
}

/// Stiffness of the mouse spring per unit mass, 1/s^2: `sqrt(k) = 20 rad/s`,
/// so `sqrt(k) dt = 0.33` at `dt = 1/60 s`, well inside the stability bound
/// of 2, and a point hanging from the mouse sags `g / k = 2.5 cm`.
pub const DRAG_STIFFNESS: f32 = 400.0;
/// Damping of the mouse spring, 1/s: critical (`2 sqrt(k)`).
pub const DRAG_DAMPING: f32 = 40.0;

fn compute_pipeline(device: &wgpu::Device, name: &str) -> wgpu::ComputePipeline {
    let module = shaders::module(device, name);
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(name),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    })
}

fn uniform(device: &wgpu::Device, label: &str, size: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

const MAP_WAITING: u8 = 0;
const MAP_DONE: u8 = 1;
const MAP_FAILED: u8 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PickState {
    Idle,
    /// The pick is recorded into an encoder not yet submitted.
    Recorded,
    /// Submitted; the readback is being mapped.
    Mapping,
}

/// Finds the point nearest to a world position on the GPU; the answer is
/// read back asynchronously. One pick in flight at a time.
pub struct Picker {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    query: wgpu::Buffer,
    result: wgpu::Buffer,
    staging: wgpu::Buffer,
    bind: Option<(wgpu::BindGroup, u32)>,
    state: PickState,
    mapped: Arc<AtomicU8>,
}

impl Picker {
    /// A picker on `device`, whose readbacks go through `queue`: it binds
    /// only a solver made with the same pair.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        let size = std::mem::size_of::<PickResult>() as u64;
        Self {
            device: device.clone(),
            queue: queue.clone(),
            pipeline: compute_pipeline(device, "pick"),
            query: uniform(
                device,
                "softbody pick query",
                std::mem::size_of::<PickQuery>(),
            ),
            result: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("softbody pick result"),
                size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            staging: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("softbody pick readback"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            bind: None,
            state: PickState::Idle,
            mapped: Arc::new(AtomicU8::new(MAP_WAITING)),
        }
    }

    /// Binds a solver's state; call again when the solver is rebuilt or
    /// edited (its [`edit_generation`](GpuSolver::edit_generation)
    /// changes): the pick searches the point count it had then. A pick
    /// recorded or in flight for the solver bound before is dropped. A
    /// solver on another device or queue than the picker's is
    /// [`SolverError::WrongDevice`](crate::gpu::SolverError::WrongDevice),
    /// and nothing changes.
    pub fn set_solver(&mut self, solver: &GpuSolver) -> Result<(), RenderError> {
        solver.check_context("Picker::set_solver", Some(&self.device), Some(&self.queue))?;
        if self.state == PickState::Mapping {
            // Cancels the pending map (its callback reports failure).
            self.staging.unmap();
        }
        self.state = PickState::Idle;
        let bind = bind_group(
            &self.device,
            "softbody pick",
            &self.pipeline,
            &[
                (0, &self.query),
                (1, solver.state_buffer()),
                (2, &self.result),
            ],
        );
        self.bind = Some((bind, solver.num_points() as u32));
        Ok(())
    }

    /// Whether a pick is recorded or in flight.
    pub fn busy(&self) -> bool {
        self.state != PickState::Idle
    }

    /// Records a pick at `cursor` (m) into `encoder`; `false` (nothing
    /// recorded) while another pick is in flight or no solver is bound.
    /// Call [`after_submit`](Self::after_submit) once `encoder` is submitted.
    pub fn request(&mut self, encoder: &mut wgpu::CommandEncoder, cursor: Vec2) -> bool {
        let Some((bind, num_points)) = &self.bind else {
            return false;
        };
        if self.state != PickState::Idle {
            return false;
        }
        let q = PickQuery {
            cursor: cursor.to_array(),
            num_points: *num_points,
            _pad: 0,
        };
        self.queue
            .write_buffer(&self.query, 0, bytemuck::bytes_of(&q));
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("softbody pick"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, bind, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&self.result, 0, &self.staging, 0, self.result.size());
        self.state = PickState::Recorded;
        true
    }

    /// Starts the asynchronous readback of a recorded pick; call after the
    /// encoder holding it was submitted.
    pub fn after_submit(&mut self) {
        if self.state != PickState::Recorded {
            return;
        }
        self.mapped.store(MAP_WAITING, Ordering::Release);
        let flag = Arc::clone(&self.mapped);
        self.staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| {
                flag.store(
                    if r.is_ok() { MAP_DONE } else { MAP_FAILED },
                    Ordering::Release,
                );
            });
        self.state = PickState::Mapping;
    }

    /// The answer of the pick in flight, once it has arrived (the caller
    /// polls the device, e.g. `device.poll(wgpu::PollType::Poll)` each
    /// frame): `Some(None)` for a world without points or a failed readback.
    pub fn poll(&mut self) -> Option<Option<PickResult>> {
        if self.state != PickState::Mapping {
            return None;
        }
        match self.mapped.load(Ordering::Acquire) {
            MAP_WAITING => None,
            MAP_DONE => {
                let result = self.staging.slice(..).get_mapped_range().ok().map(|view| {
                    let r: PickResult = *bytemuck::from_bytes(&view);
                    r
                });
                self.staging.unmap();
                self.state = PickState::Idle;
                Some(result.filter(|r| r.point != u32::MAX))
            }
            _ => {
                self.state = PickState::Idle;
                Some(None)
            }
        }
    }

    /// Picks at `cursor` and waits for the answer (tests and tools).
    pub fn pick_blocking(&mut self, cursor: Vec2) -> Option<PickResult> {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        if !self.request(&mut encoder, cursor) {
            return None;
        }
        self.queue.submit([encoder.finish()]);
        self.after_submit();
        loop {
            if self
                .device
                .poll(wgpu::PollType::wait_indefinitely())
                .is_err()
            {
                self.state = PickState::Idle;
                return None;
            }
            if let Some(r) = self.poll() {
                return r;
            }
        }
    }
}

/// Drags one point toward a target through a damped spring
/// ([`DRAG_STIFFNESS`], [`DRAG_DAMPING`]), applied on the GPU before each
/// step.
pub struct Dragger {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    params: wgpu::Buffer,
    bind: Option<wgpu::BindGroup>,
    num_points: u32,
    active: bool,
}

impl Dragger {
    /// A dragger on `device`, whose parameters go through `queue`: it binds
    /// only a solver made with the same pair.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        Self {
            device: device.clone(),
            queue: queue.clone(),
            pipeline: compute_pipeline(device, "drag"),
            params: uniform(device, "softbody drag", std::mem::size_of::<DragParams>()),
            bind: None,
            num_points: 0,
            active: false,
        }
    }

    /// Binds a solver's state; call again when the solver is rebuilt or
    /// edited (its [`edit_generation`](GpuSolver::edit_generation)
    /// changes). Clears the drag. A solver on another device or queue than
    /// the dragger's is
    /// [`SolverError::WrongDevice`](crate::gpu::SolverError::WrongDevice),
    /// and nothing changes.
    pub fn set_solver(&mut self, solver: &GpuSolver) -> Result<(), RenderError> {
        solver.check_context("Dragger::set_solver", Some(&self.device), Some(&self.queue))?;
        self.bind = Some(bind_group(
            &self.device,
            "softbody drag",
            &self.pipeline,
            &[(0, &self.params), (1, solver.state_buffer())],
        ));
        self.num_points = solver.num_points() as u32;
        self.active = false;
        Ok(())
    }

    /// Sets (or with `None` clears) the dragged point and its target for
    /// the steps recorded next; `dt` is the step length. A target or `dt`
    /// that is not finite (or a `dt` not above 0) is refused, and the drag
    /// cleared: it would make the point's velocity NaN. A point past the
    /// solver's count is ignored by the kernel.
    pub fn set(&mut self, drag: Option<(u32, Vec2)>, dt: f32) -> Result<(), WorldError> {
        let bad = match drag {
            Some((point, target)) if !target.is_finite() => Some(WorldError::NonFinite {
                item: Item::Point(point),
                field: "drag target",
            }),
            _ if !(dt.is_finite() && dt > 0.0) => Some(WorldError::OutOfRange {
                item: Item::Params,
                field: "dt",
                value: dt as f64,
                expected: "finite and > 0",
            }),
            _ => None,
        };
        let drag = if bad.is_some() { None } else { drag };
        self.active = drag.is_some();
        let (point, target) = drag.unwrap_or((0, Vec2::ZERO));
        let params = DragParams {
            target_pos: target.to_array(),
            point,
            enabled: self.active as u32,
            stiffness: DRAG_STIFFNESS,
            damping: DRAG_DAMPING,
            dt: if bad.is_some() { 0.0 } else { dt },
            num_points: self.num_points,
        };
        self.queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        bad.map_or(Ok(()), Err)
    }

    /// Records the drag impulse; call before each `record_step`. Records
    /// nothing when no point is dragged.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let (true, Some(bind)) = (self.active, &self.bind) else {
            return;
        };
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("softbody drag"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, bind, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
}
