//! What collides within an assembly (`src/pack/joins.rs`, `meets_joined`
//! in `shaders/body_collide.wgsl` and `src/cpu/body_collide/mod.rs`):
//! bodies joined by a shared point, a spring or a rod do not collide;
//! every other pair of one assembly does, as bodies of two assemblies do.
//! The lists as packed, one contact pass against the CPU's on the GPU, and
//! chains of hinged or sprung links, of boxes and of hubless rings, in
//! metres and centimetres at two time steps, that lie on themselves
//! instead of passing through.

use crate::body_collide::{
    assert_same_tangles, contact_pass_on_both, record_stages, roped_box, start_contact_substep,
};
use crate::common::{both, farthest, gpu};
use softbody::gpu::Stage;
use softbody::layout::NO_JOINS;
use softbody::pack::Packed;
use softbody::prelude::*;

/// The bodies on the list `joins` names in `p`'s outline points.
fn joined(p: &Packed, joins: u32) -> Vec<u32> {
    if joins == NO_JOINS {
        return Vec::new();
    }
    let n = p.outline_points[joins as usize] as usize;
    p.outline_points[joins as usize + 1..joins as usize + 1 + n].to_vec()
}

/// Whether `q` is strictly inside the polygon `poly` (even-odd rule).
fn inside(poly: &[Vec2], q: Vec2) -> bool {
    let mut c = false;
    for i in 0..poly.len() {
        let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
        if (a.y > q.y) != (b.y > q.y) && q.x < a.x + (q.y - a.y) / (b.y - a.y) * (b.x - a.x) {
            c = !c;
        }
    }
    c
}

/// Points of one body strictly inside the outline of a body that is not
/// joined to it (`joined_to`), as the state `pos` has them.
fn inside_unjoined(
    world: &World,
    pos: &[[f32; 2]],
    joined_to: impl Fn(usize, usize) -> bool,
) -> usize {
    let outline = |b: &Body| -> Vec<Vec2> {
        b.outline()
            .iter()
            .map(|h| Vec2::from(pos[h.index()]))
            .collect()
    };
    let bodies = world.bodies();
    let mut n = 0;
    for (i, a) in bodies.iter().enumerate() {
        let poly = outline(a);
        for (j, b) in bodies.iter().enumerate() {
            if i != j && !joined_to(i, j) {
                n += b
                    .points
                    .iter()
                    .filter(|h| inside(&poly, Vec2::from(pos[h.index()])))
                    .count();
            }
        }
    }
    n
}

/// A 3 x 1 grid of cells sharing edges, a chain of three boxes hinged at
/// shared corners, two boxes tied by a spring, a rope tied into a box,
/// and a lone box.
struct Joints {
    world: World,
    grid: Shape,
    chain: Vec<BodyHandle>,
    towed: [BodyHandle; 2],
    rope: Shape,
    roped: BodyHandle,
    lone: BodyHandle,
}

fn joints() -> Joints {
    let mut world = World::default();
    let grid = BoxGrid::new(3, 1, Vec2::splat(0.5))
        .center(Vec2::new(3.0, 3.0))
        .build(&mut world)
        .unwrap();
    let mut chain = Vec::new();
    let mut hinge = world.add_point(Point::new(Vec2::new(-3.0, 0.6))).unwrap();
    for k in 0..3 {
        let x = -3.0 + 0.5 * k as f32;
        let corners = [
            world.add_point(Point::new(Vec2::new(x, 0.5))).unwrap(),
            world
                .add_point(Point::new(Vec2::new(x + 0.5, 0.5)))
                .unwrap(),
            world
                .add_point(Point::new(Vec2::new(x + 0.5, 0.6)))
                .unwrap(),
        ];
        let body = Body::new(vec![corners[0], corners[1], corners[2], hinge]);
        chain.push(world.add_body(body).unwrap());
        hinge = corners[2];
    }
    let a = BoxShape::new(Vec2::new(0.0, 5.0), Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    let b = BoxShape::new(Vec2::new(1.0, 5.0), Vec2::splat(0.5))
        .build(&mut world)
        .unwrap();
    world
        .add_spring(Spring::new(a.points[1], b.points[0]))
        .unwrap();
    let (boxed, rope) = roped_box(&mut world);
    let lone = BoxShape::new(Vec2::new(6.0, 3.0), Vec2::ONE)
        .build(&mut world)
        .unwrap();
    Joints {
        world,
        grid,
        chain,
        towed: [a.bodies[0], b.bodies[0]],
        rope,
        roped: boxed.bodies[0],
        lone: lone.bodies[0],
    }
}

#[test]
fn packing_lists_the_joined_bodies_of_each_body_and_point() {
    let j = joints();
    let p = Packed::from_world(&j.world).unwrap();
    // A body's list follows its outline.
    let body = |h: BodyHandle| {
        let o = &p.outlines[h.index()];
        joined(&p, o.first + o.count)
    };
    let cells = &j.grid.bodies;
    let ids = |hs: &[BodyHandle]| hs.iter().map(|h| h.0).collect::<Vec<_>>();
    // A cell is joined to its neighbours and itself; the end cells are
    // not joined to each other (the springs along the middle cell's edges
    // are its own, though their ends are shared).
    assert_eq!(body(cells[0]), ids(&cells[..2]));
    assert_eq!(body(cells[1]), ids(cells));
    assert_eq!(body(cells[2]), ids(&cells[1..]));
    assert_eq!(body(j.chain[0]), ids(&j.chain[..2]));
    assert_eq!(body(j.chain[1]), ids(&j.chain));
    // A spring joins the two boxes it ties.
    assert_eq!(body(j.towed[0]), ids(&j.towed));
    // A body alone in its assembly: itself.
    assert_eq!(body(j.lone), ids(&[j.lone]));
    // Points: an unshared corner has its body's list; the hinge shared by
    // links 0 and 1 has their union; a rope's free point has none, nor
    // does a point of the box it is tied into (alone among bodies).
    let point = |h: PointHandle| p.contact_points[h.index()].joins;
    let chain_points = |b: BodyHandle| j.world.bodies()[b.index()].points.clone();
    let corner = chain_points(j.chain[0])[0];
    assert_eq!(joined(&p, point(corner)), ids(&j.chain[..2]));
    let hinge = chain_points(j.chain[0])[2];
    assert_eq!(chain_points(j.chain[1])[3], hinge, "shared");
    assert_eq!(joined(&p, point(hinge)), ids(&j.chain));
    assert_eq!(point(j.rope.points[2]), NO_JOINS);
    assert_eq!(body(j.roped), ids(&[j.roped]));
    let roped = j.world.bodies()[j.roped.index()].points[1];
    assert_eq!(point(roped), NO_JOINS);
}

/// Link 2 of the chain stretched back over link 1 (joined to it) until its
/// first corner lies 2 cm inside link 0 (not joined to it); the towed
/// boxes pushed 0.3 m into each other.
fn folded(j: &Joints, pos: &mut [[f32; 2]]) {
    let link = &j.world.bodies()[j.chain[2].index()];
    pos[link.points[0].index()] = [-2.7, 0.52];
    for h in &j.world.bodies()[j.towed[1].index()].points {
        pos[h.index()][0] -= 0.8;
    }
}

#[test]
fn bodies_of_one_assembly_collide_unless_joined_and_the_gpu_agrees() {
    let j = joints();
    let mut cpu = CpuSolver::new(&j.world).unwrap();
    let mut pos = cpu.positions().to_vec();
    folded(&j, &mut pos);
    let vel = cpu.velocities().to_vec();
    cpu.set_state(&pos, &vel).unwrap();
    cpu.stage_broad_phase();
    let before = cpu.positions().to_vec();
    cpu.stage_body_collide();
    let moved = |bodies: &[BodyHandle]| {
        bodies
            .iter()
            .flat_map(|b| j.world.bodies()[b.index()].points.iter())
            .filter(|h| before[h.index()] != cpu.positions()[h.index()])
            .count()
    };
    // Links 0 and 2 push each other, link 1 (joined to both) is left
    // alone; the towed pair (joined by their spring) does not collide.
    assert!(moved(&j.chain[..1]) >= 1, "link 0 is pushed by link 2");
    assert!(moved(&j.chain[2..]) >= 1, "link 2 is pushed out of link 0");
    assert_eq!(moved(&j.towed), 0, "bodies tied by a spring do not");
    assert_eq!(moved(&[j.roped, j.lone]), 0);
    assert_eq!(moved(&j.grid.bodies), 0);
    assert!(
        j.rope
            .points
            .iter()
            .all(|h| before[h.index()] == cpu.positions()[h.index()])
    );

    // One contact pass on the GPU from the same state: the same contacts.
    let Some(ctx) = gpu() else { return };
    let mut cpu = CpuSolver::new(&j.world).unwrap();
    cpu.set_state(&pos, &vel).unwrap();
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &j.world).unwrap();
    start_contact_substep(&ctx, &mut gpu, &mut cpu);
    let before = cpu.positions().to_vec();
    let (dp, dv) = contact_pass_on_both(&ctx, &mut gpu, &mut cpu);
    let moved = before
        .iter()
        .zip(cpu.positions())
        .filter(|(a, b)| a != b)
        .count();
    eprintln!("{moved} points moved by contacts; GPU - CPU: pos {dp:.2e} m, vel {dv:.2e} m/s");
    assert!(moved >= 2, "contacts within the assembly");
    assert!(dp <= 1e-5 && dv <= 1e-3, "pos {dp} vel {dv}");
}

/// Two links of one chain (not neighbours) tangled, link 2 laid deep
/// across link 0 (its centre inside it), and untangled as bodies of two
/// assemblies are: the same tangles and parting speeds on the GPU.
#[test]
fn bodies_of_one_assembly_untangle_and_the_gpu_agrees() {
    let j = joints();
    let mut world = j.world.clone();
    world.params.gravity = Vec2::ZERO;
    let mut cpu = CpuSolver::new(&world).unwrap();
    let mut pos = cpu.positions().to_vec();
    // Link 2 (bl, br, tr, hinge) stretched back over link 0 so that its
    // centre lies inside link 0: the hinge stays, the rest moves left.
    let link = &world.bodies()[j.chain[2].index()];
    for (h, at) in link.points[..3]
        .iter()
        .zip([[-2.9, 0.52], [-2.7, 0.53], [-2.7, 0.58]])
    {
        pos[h.index()] = at;
    }
    let vel = cpu.velocities().to_vec();
    cpu.set_state(&pos, &vel).unwrap();
    cpu.stage_broad_phase();
    let before = cpu.velocities().to_vec();
    cpu.stage_untangle();
    let tangled = |t: &[u32; 8]| [t[1], t[5]];
    let t = cpu.tangles();
    let (a, c) = (j.chain[0].index(), j.chain[2].index());
    eprintln!("link 0 tangles {:?}, link 2 {:?}", t[a], t[c]);
    assert!(
        tangled(&t[a]).contains(&(c as u32)) || tangled(&t[c]).contains(&(a as u32)),
        "links 0 and 2 are tangled"
    );
    assert_ne!(before, cpu.velocities(), "and parted");
    let joined_pair = tangled(&t[j.chain[1].index()]).contains(&(a as u32))
        || tangled(&t[a]).contains(&(j.chain[1].index() as u32));
    assert!(!joined_pair, "joined links are never tangled");

    let Some(ctx) = gpu() else { return };
    let cpu_adapter = ctx.adapter.get_info().device_type == wgpu::DeviceType::Cpu;
    let mut cpu = CpuSolver::new(&world).unwrap();
    cpu.set_state(&pos, &vel).unwrap();
    let mut gpu = GpuSolver::new(&ctx.device, &ctx.queue, &world).unwrap();
    start_contact_substep(&ctx, &mut gpu, &mut cpu);
    record_stages(&ctx, &mut gpu, &[Stage::Untangle]);
    cpu.stage_untangle();
    let state = gpu.read_state(&ctx.device, &ctx.queue).unwrap();
    let dv = farthest(&state.vel, cpu.velocities());
    eprintln!("untangle: GPU - CPU vel {dv:.2e} m/s");
    assert_same_tangles(
        &gpu.read_tangles(&ctx.device, &ctx.queue).unwrap(),
        &cpu.tangles(),
        cpu_adapter,
    );
    assert!(
        dv <= if cpu_adapter { 0.0 } else { 1e-5 },
        "velocities {dv} apart"
    );
}

/// A chain of `n` links hanging down from `top` then dropped: boxes of
/// `l` by `w` with diagonal springs hinged at their right-hand corners
/// (neighbours share a point), or hubless 8-point rings of diameter `l`
/// tied to the next by a spring across a tenth of a diameter. Its links curve to the right as they
/// rise, so that the chain folds over itself as it lands.
fn chain(unit: f32, dt: f32, rings: bool) -> World {
    let mut params = Params::with_length_unit(unit).unwrap();
    params.dt = dt;
    let mut world = World::new(params);
    world.add_plane(HalfPlane::floor(0.0)).unwrap();
    let (l, w, n) = (0.5 * unit, 0.12 * unit, 12);
    let bend = |p: Vec2| Vec2::new(p.x + 0.02 * p.y * p.y / unit, p.y);
    let y0 = 0.3 * unit;
    if rings {
        let mut last: Option<PointHandle> = None;
        for k in 0..n {
            // A tenth of a diameter apart, tied across the gap.
            let c = bend(Vec2::new(0.0, y0 + 1.1 * l * (k as f32 + 0.5)));
            let ring = Blob::new(c, 0.5 * l, 8)
                .center_point(false)
                .build(&mut world)
                .unwrap();
            // Tied bottom to the last ring's top (points 6 and 2 of 8 run
            // counter-clockwise from the right).
            if let Some(top) = last {
                world.add_spring(Spring::new(top, ring.points[6])).unwrap();
            }
            last = Some(ring.points[2]);
        }
    } else {
        let mut hinge = world.add_point(Point::new(bend(Vec2::new(w, y0)))).unwrap();
        for k in 0..n {
            let yb = y0 + l * k as f32;
            let bl = world
                .add_point(Point::new(bend(Vec2::new(0.0, yb))))
                .unwrap();
            let tr = world
                .add_point(Point::new(bend(Vec2::new(w, yb + l))))
                .unwrap();
            let tl = world
                .add_point(Point::new(bend(Vec2::new(0.0, yb + l))))
                .unwrap();
            world.add_spring(Spring::new(bl, tr)).unwrap();
            world.add_spring(Spring::new(hinge, tl)).unwrap();
            world.add_body(Body::new(vec![bl, hinge, tr, tl])).unwrap();
            hinge = tr;
        }
    }
    world
}

#[test]
fn a_dropped_chain_lies_on_itself_instead_of_passing_through() {
    // Links that are neither the same nor neighbours must not overlap.
    let neighbours = |i: usize, j: usize| i.abs_diff(j) <= 1;
    for (unit, dt, rings) in [
        (1.0, 1.0 / 60.0, false),
        (100.0, 1.0 / 120.0, false),
        (1.0, 1.0 / 120.0, true),
        (100.0, 1.0 / 60.0, true),
    ] {
        let world = chain(unit, dt, rings);
        for mut s in both(&world) {
            let mut worst = 0;
            let steps = (4.0 / dt) as u64;
            for _ in 0..steps / 10 {
                s.step(10).unwrap();
                let (pos, _) = s.state().unwrap();
                worst = worst.max(inside_unjoined(&world, &pos, neighbours));
            }
            let (pos, vel) = s.state().unwrap();
            let at_rest = inside_unjoined(&world, &pos, neighbours);
            let lowest = pos.iter().map(|p| p[1]).fold(f32::MAX, f32::min) / unit;
            let fastest = vel
                .iter()
                .map(|v| Vec2::from(*v).length())
                .fold(0.0, f32::max)
                / unit;
            eprintln!(
                "{} unit {unit} dt {dt:.4} rings {rings}: points inside links not their neighbours: {at_rest} at 4 s, at most {worst} while landing; lowest {lowest:.3} m, fastest {fastest:.3} m/s",
                s.name()
            );
            // A point may be inside for a few substeps as links land on
            // each other at speed; through each other they would stay.
            assert_eq!(at_rest, 0, "{}: links passed through each other", s.name());
            assert!(
                worst <= 3,
                "{}: {worst} points inside while landing",
                s.name()
            );
            assert!(lowest > 0.0, "{}: below the floor", s.name());
            assert!(fastest < 0.5, "{}: at rest by 4 s", s.name());
        }
    }
}
