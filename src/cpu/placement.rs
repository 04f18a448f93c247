//! Where bodies are built: points that start in a collider's contact
//! skin, which the contacts push out while the rest of their bodies stays
//! (docs/physics.md, "Limits we measured"). The solvers log
//! [`warn_of_skin`] when they are built and synced.

use super::collide::collider_contact;
use crate::pack::Packed;

/// Points of bodies, from point `from` on, that start more than a quarter
/// of the point radius inside a half-plane's or a planet's contact skin
/// (their disks overlap it), at `packed`'s positions: `(count, first such
/// point, the deepest depth)`, or `None`. It reads those points alone, so
/// that a sync checks what it appended at a cost in proportion to it. The contact pushes such a point out whole (up to
/// `point_radius` deep) or at the push speed (deeper) while the rest of
/// its body stays, and shape matching gives that squash back as speed: a
/// 0.5 m box built with its bottom on the floor hops some 17 cm
/// (docs/physics.md, "Limits we measured"). Terrain is not tested.
pub fn in_collider_skin(packed: &Packed, from: usize) -> Option<(usize, u32, f32)> {
    let sim = &packed.sim;
    let r = sim.point_radius;
    if r <= 0.0 {
        return None;
    }
    // A point in a body has memberships.
    let offsets = &packed.point_members.offsets;
    let in_body = |i: usize| offsets.len() > i + 1 && offsets[i + 1] > offsets[i];
    let mut found: Option<(usize, u32, f32)> = None;
    for i in from..packed.pos.len().min(packed.point_info.len()) {
        let (p, info) = (&packed.pos[i], &packed.point_info[i]);
        if !in_body(i) || info.inv_mass == 0.0 {
            continue;
        }
        let depth = (0..sim.num_planets + sim.num_planes)
            .map(|k| {
                let p = glam::Vec2::from(*p);
                collider_contact(sim, k, info.layers, p, &packed.planets, &packed.planes, r).1
            })
            .fold(0.0f32, f32::max);
        if depth > 0.25 * r {
            found = Some(match found {
                None => (1, i as u32, depth),
                Some((n, first, deepest)) => (n + 1, first, deepest.max(depth)),
            });
        }
    }
    found
}

/// Logs [`skin_warning`], if any: the solvers call it when they are built
/// (`from` 0) and when a sync adds points (`from`, the first new one).
pub fn warn_of_skin(packed: &Packed, from: usize) {
    if let Some(w) = skin_warning(packed, from) {
        log::warn!("{w}");
    }
}

/// [`in_collider_skin`] from point `from` as a warning, or `None`.
pub fn skin_warning(packed: &Packed, from: usize) -> Option<String> {
    let (n, first, deepest) = in_collider_skin(packed, from)?;
    Some(format!(
        "{n} points of bodies start inside a half-plane's or planet's contact skin (point {first} first; the deepest {deepest:.3} m, point_radius {:.3} m): they are pushed out while the rest of their bodies stays, and the bodies spring up (a 0.5 m box built on the floor hops some 17 cm); build bodies point_radius clear of the colliders (docs/physics.md, \"Limits we measured\")",
        packed.sim.point_radius
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes::{BoxShape, Wheel};
    use crate::world::{HalfPlane, Planet, Point, World};
    use glam::Vec2;

    fn packed(world: &World) -> Packed {
        Packed::from_world(world).unwrap()
    }

    /// A box built with its bottom on the floor has its two bottom points
    /// a point radius into the floor's skin, and so has a wheel built on a
    /// planet's surface (its hub clear), found also when only the points
    /// from the wheel's on are read; built a point radius clear, and for a
    /// free point, nothing is reported.
    #[test]
    fn bodies_built_in_a_colliders_skin_are_found() {
        let mut world = World::default();
        world.add_plane(HalfPlane::floor(0.0)).unwrap();
        let r = world.params.point_radius;
        BoxShape::new(Vec2::new(-3.0, 0.25 + r + 0.001), Vec2::splat(0.5))
            .build(&mut world)
            .unwrap();
        world.add_point(Point::new(Vec2::new(5.0, 0.0))).unwrap();
        assert_eq!(in_collider_skin(&packed(&world), 0), None);
        assert_eq!(skin_warning(&packed(&world), 0), None);
        BoxShape::new(Vec2::new(0.0, 0.25), Vec2::splat(0.5))
            .build(&mut world)
            .unwrap();
        let (n, first, deepest) = in_collider_skin(&packed(&world), 0).unwrap();
        assert_eq!(n, 2, "the bottom corners");
        assert!((deepest - r).abs() < 1e-6, "{deepest}");
        assert!(world.points()[first as usize].pos.y < 1e-6);
        let warning = skin_warning(&packed(&world), 0).unwrap();
        assert!(warning.starts_with("2 points of bodies"), "{warning}");
        world
            .add_planet(Planet::new(Vec2::new(20.0, 0.0), 2.0))
            .unwrap();
        let from = world.points().len();
        Wheel::new(Vec2::new(20.0, 2.5), 0.5, 12)
            .build(&mut world)
            .unwrap();
        let p = packed(&world);
        assert_eq!(in_collider_skin(&p, 0).unwrap().0, 3);
        // From the wheel's points on (what a sync appended): its rim point.
        let (n, first, _) = in_collider_skin(&p, from).unwrap();
        assert_eq!((n, first as usize >= from), (1, true));
        assert_eq!(in_collider_skin(&p, p.pos.len()), None);
    }
}
