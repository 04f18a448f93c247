// Drawing straight from the solver's storage buffers: every vertex shader
// reads positions (interpolated between the previous and the current step),
// velocities, springs and body memberships where the kernels left them;
// nothing goes through the CPU per frame. Fills (with their outlines) are
// triangles over member indices (triangulated once at upload), so each
// vertex is a `Member` of the solver's members buffer.
// `shaders/shared.wgsl` is prepended (Member, PlanetInfo, PlaneInfo,
// KIND_ROD). Rust side: src/render/renderer.rs; the `View` twin is
// `render::ViewUniform`, checked against naga's layout in tests/render.rs.
//
// Colours are written as they should appear (sRGB-encoded values into a
// non-sRGB target, as egui does), so blending happens in display space.

const NONE: u32 = 0xffffffffu;
const COLOR_BY_BODY: u32 = 0u;
const COLOR_BY_SPEED: u32 = 1u;

// A spring as drawn: its ends, rest length and kind (uploaded by the
// renderer from the world, so drawing does not depend on how the solver
// stores its springs).
struct SpringLine {
    a: u32,
    b: u32,
    rest: f32,
    kind: u32,
}

struct View {
    // World point at the centre of the target, m.
    center: vec2<f32>,
    // Clip-space units per metre along x and y.
    scale: vec2<f32>,
    // Interpolation factor between the previous and the current state.
    alpha: f32,
    metres_per_pixel: f32,
    // Drawn radius of a point, m (at least 1.5 pixels on screen).
    point_radius: f32,
    // Speed mapped to the hot end of the speed colour map, m/s.
    max_speed: f32,
    color_mode: u32,
    // Point being dragged (drawn highlighted), or NONE.
    highlight: u32,
    num_planes: u32,
    fill_alpha: f32,
    // Where the dragged point is pulled to, m.
    drag_target: vec2<f32>,
    // First grid line at or left of / below the view, m.
    grid_first: vec2<f32>,
    // Grid spacing, m (a power of ten at least ~24 pixels).
    grid_step: f32,
    // Vertical grid lines; the rest of the grid draw is horizontal lines.
    grid_columns: u32,
    // Whether fills and outlines are drawn (the fill pass draws both).
    draw_fill: u32,
    draw_outlines: u32,
    _pad: vec2<u32>,
}

@group(0) @binding(0) var<uniform> view: View;
// The solver's state, per point (position, velocity), and its copy from
// the previous step.
@group(0) @binding(1) var<storage, read> state: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> prev: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> springs: array<SpringLine>;
@group(0) @binding(4) var<storage, read> members: array<Member>;
// Per fill triangle, its body's colour, packed RGBA8 (sRGB-encoded).
@group(0) @binding(5) var<storage, read> fill_colors: array<u32>;
// The solver's collider table (moving ones posed) and terrain segments.
@group(0) @binding(6) var<storage, read> colliders: Colliders;
@group(0) @binding(7) var<storage, read> segments: array<SegmentInfo>;
// Fill triangles: see `FillVarying` below.
@group(0) @binding(8) var<storage, read> fill: array<u32>;

struct Varying {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
}

// A point where it stood `alpha` of the way from the previous step to the
// current one (Gaul 2013: render interpolation with the accumulator's alpha).
fn point_at(i: u32) -> vec2<f32> {
    return mix(prev[i].xy, state[i].xy, view.alpha);
}

fn to_clip(p: vec2<f32>) -> vec4<f32> {
    return vec4<f32>((p - view.center) * view.scale, 0.0, 1.0);
}

// Blue -> cyan -> yellow -> red as `t` goes 0 -> 1.
// A NaN speed (a state gone non-finite) shows as the fastest: red.
fn speed_color(speed: f32) -> vec3<f32> {
    var t = clamp(speed / view.max_speed, 0.0, 1.0);
    if (speed != speed) {
        t = 1.0;
    }
    let c0 = vec3<f32>(0.16, 0.22, 0.62);
    let c1 = vec3<f32>(0.10, 0.75, 0.85);
    let c2 = vec3<f32>(0.98, 0.86, 0.25);
    let c3 = vec3<f32>(0.95, 0.25, 0.18);
    if (t < 0.33) {
        return mix(c0, c1, t / 0.33);
    }
    if (t < 0.66) {
        return mix(c1, c2, (t - 0.33) / 0.33);
    }
    return mix(c2, c3, (t - 0.66) / 0.34);
}

// The colour of fill triangle `tri` at its corner `point`.
fn body_color(point: u32, tri: u32) -> vec3<f32> {
    if (view.color_mode == COLOR_BY_SPEED) {
        return speed_color(length(state[point].zw));
    }
    return unpack4x8unorm(fill_colors[tri]).rgb;
}

// Fill triangles, three entries each: a member index in the low 31 bits;
// bit 31 set when the edge from this corner to the next is on the body's
// outline. Triangulated once at upload (src/render/topology.rs).
struct FillVarying {
    @builtin(position) clip: vec4<f32>,
    @location(0) fill: vec4<f32>,
    @location(1) outline: vec4<f32>,
    // Barycentric coordinates: the distance to the edge opposite each corner.
    @location(2) bary: vec3<f32>,
    // Which edges are outline: bit k for the edge from corner k to k + 1.
    @location(3) @interpolate(flat) edges: u32,
}

const OUTLINE_BIT: u32 = 0x80000000u;

@vertex
fn vs_fill(@builtin(vertex_index) v: u32) -> FillVarying {
    let corner = v % 3u;
    let first = v - corner;
    var edges = 0u;
    for (var k = 0u; k < 3u; k++) {
        edges |= (fill[first + k] >> 31u) << k;
    }
    let mb = members[fill[v] & ~OUTLINE_BIT];
    let c = body_color(mb.point, v / 3u);
    var bary = vec3<f32>(0.0);
    bary[corner] = 1.0;
    var fill_color = vec4<f32>(c, view.fill_alpha);
    if (view.draw_fill == 0u) {
        fill_color.a = 0.0;
    }
    var outline_color = vec4<f32>(mix(c, vec3<f32>(1.0), 0.3), 0.9);
    if (view.draw_outlines == 0u) {
        outline_color = fill_color;
    }
    return FillVarying(to_clip(point_at(mb.point)), fill_color, outline_color, bary, edges);
}

// The fill, with a one-pixel outline along the body's outline edges (not
// along the inner edges of the triangulation), anti-aliased with the
// barycentric coordinates' screen-space derivatives.
@fragment
fn fs_fill(in: FillVarying) -> @location(0) vec4<f32> {
    let px = in.bary / max(fwidth(in.bary), vec3<f32>(1e-6));
    var d = 1e6;
    // Edge k runs from corner k to corner k + 1, opposite corner k + 2.
    if ((in.edges & 1u) != 0u) {
        d = min(d, px.z);
    }
    if ((in.edges & 2u) != 0u) {
        d = min(d, px.x);
    }
    if ((in.edges & 4u) != 0u) {
        d = min(d, px.y);
    }
    let c = mix(in.fill, in.outline, clamp(1.5 - d, 0.0, 1.0));
    if (c.a <= 0.0) {
        discard;
    }
    return c;
}

// Springs coloured by strain: red when stretched, blue when compressed.
@vertex
fn vs_spring(@builtin(vertex_index) v: u32) -> Varying {
    let s = springs[v / 2u];
    let a = point_at(s.a);
    let b = point_at(s.b);
    var p = a;
    if ((v & 1u) == 1u) {
        p = b;
    }
    var c = vec4<f32>(0.85, 0.88, 0.95, 0.55);
    if (s.kind == KIND_ROD) {
        c = vec4<f32>(1.0, 1.0, 1.0, 0.8);
    } else if (s.rest > 0.0) {
        let strain = length(b - a) / s.rest - 1.0;
        let k = clamp(abs(strain) * 8.0, 0.0, 1.0);
        var hot = vec3<f32>(1.0, 0.3, 0.25);
        if (strain < 0.0) {
            hot = vec3<f32>(0.3, 0.55, 1.0);
        }
        c = vec4<f32>(mix(c.rgb, hot, k), mix(c.a, 0.95, k));
    }
    return Varying(to_clip(p), c);
}

@fragment
fn fs_color(in: Varying) -> @location(0) vec4<f32> {
    return in.color;
}

// Quad corners for instanced disks: two triangles over [-1, 1]^2.
fn corner(v: u32) -> vec2<f32> {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    return corners[v];
}

struct DiskVarying {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
    // Position in units of the disk's radius; |local| = 1 on the rim.
    @location(1) local: vec2<f32>,
    // Radius in pixels, for anti-aliasing the rim.
    @location(2) radius_px: f32,
}

// One triangle around the unit disk: half the vertices of a quad.
fn disk_corner(v: u32) -> vec2<f32> {
    var corners = array<vec2<f32>, 3>(
        vec2<f32>(0.0, 2.0), vec2<f32>(-1.7320508, -1.0), vec2<f32>(1.7320508, -1.0),
    );
    return corners[v];
}

@vertex
fn vs_point(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> DiskVarying {
    var r = max(view.point_radius, view.metres_per_pixel);
    var c = vec4<f32>(0.95, 0.97, 1.0, 0.9);
    if (i == view.highlight) {
        r = max(r * 2.5, 4.0 * view.metres_per_pixel);
        c = vec4<f32>(1.0, 0.55, 0.1, 1.0);
    }
    // One extra pixel of triangle so the anti-aliased rim is not clipped.
    let q = r + view.metres_per_pixel;
    let k = disk_corner(v) * (q / r);
    return DiskVarying(to_clip(point_at(i) + disk_corner(v) * q), c, k, r / view.metres_per_pixel);
}

@fragment
fn fs_point(in: DiskVarying) -> @location(0) vec4<f32> {
    let d = (length(in.local) - 1.0) * in.radius_px;
    let cover = clamp(0.5 - d, 0.0, 1.0);
    if (cover <= 0.0) {
        discard;
    }
    return vec4<f32>(in.color.rgb, in.color.a * cover);
}

struct PlanetVarying {
    @builtin(position) clip: vec4<f32>,
    @location(0) local: vec2<f32>,
    @location(1) radius_px: f32,
    @location(2) @interpolate(flat) index: u32,
}

@vertex
fn vs_planet(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> PlanetVarying {
    let planet = colliders.planets[i];
    let r = max(planet.radius, view.metres_per_pixel);
    let q = r + 2.0 * view.metres_per_pixel;
    return PlanetVarying(to_clip(planet.center + corner(v) * q), corner(v) * (q / r), r / view.metres_per_pixel, i);
}

@fragment
fn fs_planet(in: PlanetVarying) -> @location(0) vec4<f32> {
    let dist = length(in.local);
    let d = (dist - 1.0) * in.radius_px;
    let cover = clamp(0.5 - d, 0.0, 1.0);
    if (cover <= 0.0) {
        discard;
    }
    var palette = array<vec3<f32>, 5>(
        vec3<f32>(0.30, 0.42, 0.62),
        vec3<f32>(0.55, 0.38, 0.30),
        vec3<f32>(0.30, 0.52, 0.40),
        vec3<f32>(0.52, 0.45, 0.62),
        vec3<f32>(0.62, 0.52, 0.32),
    );
    let base = palette[in.index % 5u];
    // Lit from the upper left; darker toward the limb; a bright rim.
    let light = clamp(dot(in.local, vec2<f32>(-0.5, 0.6)) * 0.5 + 0.75, 0.4, 1.2);
    let limb = 1.0 - 0.35 * dist * dist;
    var c = base * light * limb;
    let rim = clamp(1.0 - abs(d + 1.5) / 1.5, 0.0, 1.0);
    c = mix(c, base * 1.6 + vec3<f32>(0.1), rim * 0.8);
    return vec4<f32>(c, cover);
}

// The grid: `grid_columns` vertical lines, then horizontal ones, across
// the whole target; every tenth line brighter.
@vertex
fn vs_grid(@builtin(vertex_index) v: u32) -> Varying {
    let line = v / 2u;
    let end = f32(v & 1u) * 2.0 - 1.0;
    var clip: vec2<f32>;
    var k: u32;
    if (line < view.grid_columns) {
        k = line;
        let x = view.grid_first.x + f32(k) * view.grid_step;
        clip = vec2<f32>((x - view.center.x) * view.scale.x, end);
    } else {
        k = line - view.grid_columns;
        let y = view.grid_first.y + f32(k) * view.grid_step;
        clip = vec2<f32>(end, (y - view.center.y) * view.scale.y);
    }
    let origin = select(view.grid_first.y, view.grid_first.x, line < view.grid_columns);
    let index = i32(round(origin / view.grid_step)) + i32(k);
    var c = vec4<f32>(0.075, 0.09, 0.145, 1.0);
    if (index % 10 == 0) {
        c = vec4<f32>(0.11, 0.13, 0.21, 1.0);
    }
    return Varying(vec4<f32>(clip, 0.0, 1.0), c);
}

struct PlaneVarying {
    @builtin(position) clip: vec4<f32>,
    // Signed distance to the surface, m (negative inside the solid).
    @location(0) dist: f32,
}

// A half-plane: a quad from its surface into the solid side, as large as
// the view needs; the rasteriser clips it.
@vertex
fn vs_plane(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> PlaneVarying {
    let plane = colliders.planes[i];
    let n = plane.normal;
    let t = perp(n);
    let above = dot(n, view.center) - plane.offset;
    // The view centre projected onto the surface, and the view's half diagonal.
    let c0 = view.center - n * above;
    let r = length(1.0 / view.scale);
    let along = 2.0 * r + abs(above);
    // One pixel outside the surface too, for the anti-aliased edge.
    let out = 2.0 * view.metres_per_pixel;
    let deep = 2.0 * r + abs(above);
    let uv = corner(v) * 0.5 + 0.5;
    let p = c0 + t * (uv.x * 2.0 - 1.0) * along + n * mix(out, -deep, uv.y);
    return PlaneVarying(to_clip(p), dot(n, p) - plane.offset);
}

// A terrain segment: a quad from its face into the solid side, as deep as
// its thickness (what a point is pushed out of), drawn as a half-plane is.
@vertex
fn vs_segment(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> PlaneVarying {
    let s = segments[i];
    let n = s.normal;
    let out = 2.0 * view.metres_per_pixel;
    let uv = corner(v) * 0.5 + 0.5;
    let p = mix(s.a, s.b, uv.x) + n * mix(out, -s.thickness, uv.y);
    return PlaneVarying(to_clip(p), dot(n, p - s.a));
}

@fragment
fn fs_plane(in: PlaneVarying) -> @location(0) vec4<f32> {
    let d = in.dist / view.metres_per_pixel;
    let cover = clamp(0.5 - d, 0.0, 1.0);
    let shade = clamp(-in.dist * 0.04, 0.0, 0.5);
    var c = mix(vec3<f32>(0.20, 0.23, 0.30), vec3<f32>(0.11, 0.12, 0.17), shade);
    let rim = clamp(1.0 - abs(d + 1.0) / 1.5, 0.0, 1.0);
    c = mix(c, vec3<f32>(0.45, 0.52, 0.66), rim);
    return vec4<f32>(c, cover);
}

// The spring from the dragged point to the cursor.
@vertex
fn vs_drag(@builtin(vertex_index) v: u32) -> Varying {
    var p = view.drag_target;
    if (v == 0u) {
        p = point_at(view.highlight);
    }
    return Varying(to_clip(p), vec4<f32>(1.0, 0.6, 0.15, 0.95));
}
