//! WGSL of the renderer and of the interaction kernels, each with
//! `shaders/shared.wgsl` prepended like the solver's stages.

use crate::gpu::shaders::SHARED;

/// `(name, source without the prelude)` of every render-side shader, from
/// `shaders/render/`.
pub const SHADERS: &[(&str, &str)] = &[
    ("draw", include_str!("../../shaders/render/draw.wgsl")),
    ("pick", include_str!("../../shaders/render/pick.wgsl")),
    ("drag", include_str!("../../shaders/render/drag.wgsl")),
    ("overlay", include_str!("../../shaders/render/overlay.wgsl")),
];

/// The complete WGSL of a render-side shader, or `None` for an unknown name.
pub fn source(name: &str) -> Option<String> {
    SHADERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, src)| format!("{SHARED}\n{src}"))
}

pub(crate) fn module(device: &wgpu::Device, name: &str) -> wgpu::ShaderModule {
    let source = source(name).expect("shader names are internal constants");
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(name),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    })
}
