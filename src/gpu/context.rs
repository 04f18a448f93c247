//! A headless device for callers that have none of their own.

use super::SolverError;

/// An adapter, device and queue created by this crate. Embedders who own a
/// device pass theirs to [`GpuSolver::new`](super::GpuSolver::new) instead.
/// A clone shares the same device (wgpu's handles are reference counted).
#[derive(Clone)]
pub struct GpuContext {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

impl GpuContext {
    /// Creates a headless device on the best adapter the environment offers
    /// (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME` and `WGPU_POWER_PREF` are
    /// honoured; without `WGPU_BACKEND`, native backends are tried before
    /// GL). Asks for the adapter's full storage-buffer limits and for
    /// timestamp queries when the adapter has them.
    pub fn new_headless() -> Result<Self, SolverError> {
        pollster::block_on(Self::new_headless_async())
    }

    /// Async form of [`GpuContext::new_headless`].
    pub async fn new_headless_async() -> Result<Self, SolverError> {
        // Native backends first; the GL backend (EGL) only when none has an
        // adapter, or when WGPU_BACKEND asks for it.
        let explicit = std::env::var_os("WGPU_BACKEND").is_some();
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        desc.flags = instance_flags(desc.flags);
        if !explicit {
            desc.backends = wgpu::Backends::PRIMARY;
        }
        let mut instance = wgpu::Instance::new(desc);
        let mut picked = pick_adapter(&instance).await;
        if picked.is_err() && !explicit {
            let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
            desc.flags = instance_flags(desc.flags);
            desc.backends = wgpu::Backends::all();
            instance = wgpu::Instance::new(desc);
            picked = pick_adapter(&instance).await;
        }
        let adapter = picked?;
        let (device, queue) = request_device(&adapter).await?;
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
        })
    }

    /// One line naming the adapter, its backend and type.
    pub fn adapter_summary(&self) -> String {
        adapter_summary(&self.adapter)
    }
}

/// Keeps Mesa's Vulkan device-selection layer from probing for a Wayland
/// display on a machine without a desktop session (`XDG_RUNTIME_DIR`
/// unset). The layer runs inside every Vulkan program on such systems;
/// since wgpu enables the Wayland surface extension on every instance, the
/// layer asks libwayland for a display, which prints `error:
/// XDG_RUNTIME_DIR is invalid or not set in the environment.` twice
/// although nothing is wrong. Without a session the layer has no display
/// to choose a GPU by, and [`GpuContext`] picks its adapter itself, so this
/// sets the layer's own switch, `NODEVICE_SELECT=1`, unless the user has
/// set it. Elsewhere it does nothing.
///
/// # Safety
///
/// It changes the process environment, which is unsound while another
/// thread may read it: call it first thing in `main`, before any thread
/// starts (as the `softbody` program and the examples do).
pub unsafe fn quiet_display_probe() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none()
        && std::env::var_os("NODEVICE_SELECT").is_none()
    {
        // SAFETY: the caller guarantees that no other thread runs.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
}

/// The adapter named by `WGPU_ADAPTER_NAME` (a case-insensitive substring),
/// else the default one for `WGPU_POWER_PREF`.
async fn pick_adapter(instance: &wgpu::Instance) -> Result<wgpu::Adapter, SolverError> {
    if let Ok(name) = std::env::var("WGPU_ADAPTER_NAME") {
        let name = name.to_lowercase();
        let adapters = instance.enumerate_adapters(wgpu::Backends::all()).await;
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        return adapters
            .into_iter()
            .find(|a| a.get_info().name.to_lowercase().contains(&name))
            .ok_or_else(|| {
                SolverError::NoAdapter(format!(
                    "WGPU_ADAPTER_NAME={name} matches none of {names:?}"
                ))
            });
    }
    instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env().unwrap_or_default(),
            ..Default::default()
        })
        .await
        .map_err(|e| SolverError::NoAdapter(e.to_string()))
}

/// The flags of the instances this crate makes (headless and the
/// window's): `flags` (wgpu's defaults and environment) without
/// `VALIDATION_INDIRECT_CALL`, unless `WGPU_VALIDATION_INDIRECT_CALL` asks
/// for it. wgpu checks every indirect dispatch's workgroup counts with a
/// dispatch of its own, which on a CPU adapter costs about what the
/// checked dispatch does; the solver's indirect dispatches are counted by
/// its own kernels within the limits (`list_args`, `list_plane_impact`:
/// rows of at most 65535 workgroups), and its kernels do not read the
/// builtin `num_workgroups` there (WGSL `indirect_index`), which D3D12
/// leaves 0 without the check. An embedder's instance may drop the flag
/// for the same saving.
pub fn instance_flags(flags: wgpu::InstanceFlags) -> wgpu::InstanceFlags {
    if std::env::var_os("WGPU_VALIDATION_INDIRECT_CALL").is_some() {
        flags
    } else {
        flags - wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL
    }
}

/// One line naming an adapter, its backend, type and driver.
pub fn adapter_summary(adapter: &wgpu::Adapter) -> String {
    let info = adapter.get_info();
    format!(
        "{} ({:?}, {:?}, driver {} {})",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    )
}

/// Requests a device from `adapter` with the limits and features the solver
/// benefits from: the adapter's own buffer-size limits (so large worlds fit)
/// and timestamp queries where supported.
pub async fn request_device(
    adapter: &wgpu::Adapter,
) -> Result<(wgpu::Device, wgpu::Queue), SolverError> {
    // Everything the adapter offers: large worlds need its full buffer sizes.
    let limits = adapter.limits();
    let features = adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
    adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("softbody"),
            required_features: features,
            required_limits: limits,
            ..Default::default()
        })
        .await
        .map_err(|e| SolverError::RequestDevice(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instances_skip_wgpus_check_of_indirect_dispatches() {
        use wgpu::InstanceFlags as F;
        let flags = instance_flags(F::VALIDATION_INDIRECT_CALL | F::DEBUG);
        if std::env::var_os("WGPU_VALIDATION_INDIRECT_CALL").is_none() {
            assert_eq!(flags, F::DEBUG);
        } else {
            assert_eq!(flags, F::VALIDATION_INDIRECT_CALL | F::DEBUG, "as asked");
        }
    }
}
