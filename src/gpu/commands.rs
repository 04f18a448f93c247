//! Wrapper for `shaders/commands.wgsl` (CPU mirror: `cpu::commands`): the
//! caller's queued commands, applied at the start of a step in its
//! encoder, then the wake of the assemblies they woke; the joints (motors
//! and angle limits) at the start of each of the step's substeps.

use wgpu::util::DeviceExt;

use super::buffers::Buffers;
use super::shaders::{bind_group, pipeline};
use crate::layout::{COMMAND_BODY_LIMIT, Command};

/// The three kernels and the bind group of the wake (the apply's and the
/// joints' bind the step's own list of commands).
pub struct Commands {
    apply: wgpu::ComputePipeline,
    joints: wgpu::ComputePipeline,
    wake: wgpu::ComputePipeline,
    wake_bind: wgpu::BindGroup,
    /// The apply's warm starts when nothing can collide (one record).
    no_warm: wgpu::Buffer,
}

impl Commands {
    pub fn new(device: &wgpu::Device, b: &Buffers) -> Self {
        let apply = pipeline(device, "commands", "apply");
        let joints = pipeline(device, "commands", "joints");
        let wake = pipeline(device, "commands", "wake");
        let wake_bind = bind_group(
            device,
            "commands.wake",
            &wake,
            &[
                (0, &b.sim),
                (1, &b.info),
                (2, &b.sleep_points),
                (7, &b.rest_steps),
            ],
        );
        let no_warm = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("commands.no_warm"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        Self {
            apply,
            joints,
            wake,
            wake_bind,
            no_warm,
        }
    }

    /// Records `commands` (not empty; the list and the joints' colours of
    /// [`order_for_kernels`](crate::commands::order_for_kernels)) on state
    /// copy 0, where a step starts: the commands but the joints, then the
    /// wake over the points (`grid`). Returns the joints' bind groups, on
    /// either state copy, for [`Commands::record_joints`] at the start of
    /// each substep (`None`: no joints). The list goes into a buffer of
    /// its own, made here: a caller may record several steps before it
    /// submits, each with its own commands. A teleport clears its points'
    /// settled bits in `warm`, the body contacts' warm starts (`None` when
    /// nothing can collide).
    pub fn record(
        &self,
        device: &wgpu::Device,
        b: &Buffers,
        warm: Option<&wgpu::Buffer>,
        pass: &mut wgpu::ComputePass,
        (commands, colors): (&[Command], &[u32]),
        grid: (u32, u32),
    ) -> Option<StepJoints> {
        // The joints are the last commands, from the first colour's start.
        let joints = colors.first().map_or(0, |&f| commands.len() - f as usize);
        let limits = commands.iter().any(|c| c.kind == COMMAND_BODY_LIMIT);
        let head = [
            commands.len() as u32,
            joints as u32,
            colors.len().saturating_sub(1) as u32,
            limits as u32,
        ];
        let mut bytes = Vec::with_capacity(16 + std::mem::size_of_val(commands));
        bytes.extend_from_slice(bytemuck::bytes_of(&head));
        bytes.extend_from_slice(bytemuck::cast_slice(commands));
        let list = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("commands"),
            contents: &bytes,
            usage: wgpu::BufferUsages::STORAGE,
        });
        if joints < commands.len() {
            let bind = bind_group(
                device,
                "commands.apply",
                &self.apply,
                &[
                    (2, &b.sleep_points),
                    (3, &b.bodies),
                    (4, &b.members),
                    (5, &b.state[0]),
                    (6, &list),
                    (8, warm.unwrap_or(&self.no_warm)),
                ],
            );
            pass.set_pipeline(&self.apply);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        pass.set_pipeline(&self.wake);
        pass.set_bind_group(0, &self.wake_bind, &[]);
        pass.dispatch_workgroups(grid.0, grid.1, 1);
        if joints == 0 {
            return None;
        }
        let colors = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("command colours"),
            contents: bytemuck::cast_slice(colors),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let on = |state: &wgpu::Buffer| {
            bind_group(
                device,
                "commands.joints",
                &self.joints,
                &[
                    (0, &b.sim),
                    (2, &b.sleep_points),
                    (3, &b.bodies),
                    (4, &b.members),
                    (5, state),
                    (6, &list),
                    (7, &b.rest_steps),
                    (9, &colors),
                ],
            )
        };
        Some(StepJoints {
            binds: [on(&b.state[0]), on(&b.state[1])],
        })
    }

    /// Records a substep's joints on state copy `state`.
    pub fn record_joints(&self, pass: &mut wgpu::ComputePass, joints: &StepJoints, state: usize) {
        pass.set_pipeline(&self.joints);
        pass.set_bind_group(0, &joints.binds[state], &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
}

/// A step's joints (motors and angle limits), bound on each state copy:
/// [`Commands::record`] makes them, [`Commands::record_joints`] solves
/// them at the start of each substep.
pub struct StepJoints {
    binds: [wgpu::BindGroup; 2],
}
