// The window's overlay layer composited over the scene
// (src/app/overlay_layer.rs): egui drew the overlay into `layer`,
// premultiplied; blended over the target as egui's own meshes would be.

@group(0) @binding(0) var layer: texture_2d<f32>;

// One triangle over the whole target; the scissor keeps it to the overlay.
@vertex
fn vs_layer(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

// The layer's colour at this pixel.
@fragment
fn fs_layer(@builtin(position) at: vec4<f32>) -> @location(0) vec4<f32> {
    return textureLoad(layer, vec2<i32>(at.xy), 0);
}
