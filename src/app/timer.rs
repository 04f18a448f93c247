//! GPU time of a frame's simulation steps and of its drawing, from
//! timestamp queries, read back asynchronously (never waited for).

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

const SIM_BEGIN: u32 = 0;
const SIM_END: u32 = 1;
const DRAW_BEGIN: u32 = 2;
const DRAW_END: u32 = 3;
const COUNT: u32 = 4;

const WAITING: u8 = 0;
const DONE: u8 = 1;
const FAILED: u8 = 2;

/// What one frame's timestamps measured, ms.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GpuTimes {
    /// The frame's simulation steps (0 when it ran none).
    pub sim_ms: f64,
    /// The steps that time covers.
    pub steps: u32,
    /// The scene's render pass.
    pub draw_ms: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    Recording,
    Recorded,
    Mapping,
}

/// Timestamp queries around the steps and the render pass of one frame at
/// a time; frames recorded while a readback is in flight go unmeasured.
pub struct GpuTimer {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    staging: wgpu::Buffer,
    period_ns: f64,
    state: State,
    steps: u32,
    mapped: Arc<AtomicU8>,
}

impl GpuTimer {
    /// `None` when the device lacks `TIMESTAMP_QUERY`.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Self> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let size = COUNT as u64 * 8;
        Some(Self {
            set: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("softbody frame timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: COUNT,
            }),
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("softbody timestamps"),
                size,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            staging: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("softbody timestamps readback"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            period_ns: queue.get_timestamp_period() as f64,
            state: State::Idle,
            steps: 0,
            mapped: Arc::new(AtomicU8::new(WAITING)),
        })
    }

    /// Starts measuring this frame if no readback is in flight; then
    /// [`sim_begin`](Self::sim_begin) etc. record timestamps.
    pub fn begin_frame(&mut self) -> bool {
        if self.state != State::Idle {
            return false;
        }
        self.state = State::Recording;
        true
    }

    fn marker(&self, encoder: &mut wgpu::CommandEncoder, index: u32, begin: bool) {
        // An empty compute pass whose begin (or end) timestamp brackets the
        // solver's passes: the solver records into our encoder, we cannot
        // add timestamps inside its passes.
        let writes = wgpu::ComputePassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: begin.then_some(index),
            end_of_pass_write_index: (!begin).then_some(index),
        };
        encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("softbody timestamp"),
            timestamp_writes: Some(writes),
        });
    }

    /// Before the frame's first step.
    pub fn sim_begin(&self, encoder: &mut wgpu::CommandEncoder) {
        if self.state == State::Recording {
            self.marker(encoder, SIM_BEGIN, true);
        }
    }

    /// After the frame's last step.
    pub fn sim_end(&mut self, encoder: &mut wgpu::CommandEncoder, steps: u32) {
        if self.state == State::Recording {
            self.marker(encoder, SIM_END, false);
            self.steps = steps;
        }
    }

    /// Timestamp writes for the scene's render pass.
    pub fn draw_writes(&self) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        (self.state == State::Recording).then_some(wgpu::RenderPassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(DRAW_BEGIN),
            end_of_pass_write_index: Some(DRAW_END),
        })
    }

    /// After the render pass: resolves the queries for readback.
    pub fn end_frame(&mut self, encoder: &mut wgpu::CommandEncoder) {
        if self.state == State::Recording {
            encoder.resolve_query_set(&self.set, 0..COUNT, &self.resolve, 0);
            encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.staging, 0, self.resolve.size());
            self.state = State::Recorded;
        }
    }

    /// After the encoder holding [`end_frame`](Self::end_frame) was submitted.
    pub fn after_submit(&mut self) {
        if self.state != State::Recorded {
            return;
        }
        self.mapped.store(WAITING, Ordering::Release);
        let flag = Arc::clone(&self.mapped);
        self.staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| {
                flag.store(if r.is_ok() { DONE } else { FAILED }, Ordering::Release);
            });
        self.state = State::Mapping;
    }

    /// The measured frame, once its readback has arrived.
    pub fn poll(&mut self) -> Option<GpuTimes> {
        if self.state != State::Mapping {
            return None;
        }
        match self.mapped.load(Ordering::Acquire) {
            WAITING => None,
            DONE => {
                let ticks: Option<[u64; COUNT as usize]> = self
                    .staging
                    .slice(..)
                    .get_mapped_range()
                    .ok()
                    .map(|v| *bytemuck::from_bytes(&v));
                self.staging.unmap();
                self.state = State::Idle;
                let t = ticks?;
                let ms = |a: u32, b: u32| {
                    t[b as usize].saturating_sub(t[a as usize]) as f64 * self.period_ns * 1e-6
                };
                Some(GpuTimes {
                    sim_ms: if self.steps > 0 {
                        ms(SIM_BEGIN, SIM_END)
                    } else {
                        0.0
                    },
                    steps: self.steps,
                    draw_ms: ms(DRAW_BEGIN, DRAW_END),
                })
            }
            _ => {
                self.state = State::Idle;
                None
            }
        }
    }
}
