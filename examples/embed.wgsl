// The embed example's own shaders: they draw straight from the solver's
// storage buffers, with no copy of the simulation state on the CPU.

struct Style {
    // World to clip space: clip = world * scale + offset.
    scale: vec2<f32>,
    offset: vec2<f32>,
    color: vec4<f32>,
    // Half the side of a point's quad, in metres.
    point_size: f32,
}

// softbody's BodyFrame (src/layout.rs), 32 bytes.
struct BodyFrame {
    centroid: vec2<f32>,
    vel: vec2<f32>,
    rot: vec2<f32>,
    omega: f32,
    pull: f32,
}

@group(0) @binding(0) var<uniform> style: Style;
// The solver's state: per point (position, velocity).
@group(1) @binding(0) var<storage, read> state: array<vec4<f32>>;
@group(1) @binding(1) var<storage, read> frames: array<BodyFrame>;

fn to_clip(p: vec2<f32>) -> vec4<f32> {
    return vec4<f32>(p * style.scale + style.offset, 0.0, 1.0);
}

// Lines from a vertex buffer: the solver's state buffer with its spring
// or body-edge index buffer, or the example's own static geometry.
@vertex
fn line_vs(@location(0) p: vec2<f32>) -> @builtin(position) vec4<f32> {
    return to_clip(p);
}

// One quad (two triangles) per point, pulled from the state storage buffer
// by instance index.
@vertex
fn point_vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    return to_clip(state[i].xy + corners[v] * style.point_size);
}

// Each body's rigid frame as a short line from its centroid along its
// rotated x axis.
@vertex
fn frame_vs(@builtin(vertex_index) v: u32, @builtin(instance_index) b: u32) -> @builtin(position) vec4<f32> {
    let f = frames[b];
    return to_clip(f.centroid + f.rot * (0.25 * f32(v)));
}

@fragment
fn fs() -> @location(0) vec4<f32> {
    return style.color;
}
