//! Where bodies are built: points that start in a collider's contact
//! skin, which the contacts push out while the rest of their bodies stays
//! (docs/physics.md, "Limits we measured"). The solvers log
//! [`skin_warning`] when they are built.

use super::collide::collider_contact;
use crate::pack::Packed;

/// Points of bodies that start more than a quarter of the point radius
/// inside a half-plane's or a planet's contact skin (their disks overlap
/// it), at `packed`'s positions: `(count, first such point, the deepest
/// depth)`, or `None`. The contact pushes such a point out whole (up to
/// `point_radius` deep) or at the push speed (deeper) while the rest of
/// its body stays, and shape matching gives that squash back as speed: a
/// 0.5 m box built with its bottom on the floor hops some 17 cm
/// (docs/physics.md, "Limits we measured"). Terrain is not tested.
pub fn in_collider_skin(packed: &Packed) -> Option<(usize, u32, f32)> {
    let sim = &packed.sim;
    let r = sim.point_radius;
    if r <= 0.0 {
        return None;
    }
    let mut in_body = vec![false; packed.pos.len()];
    for m in &packed.members {
        if let Some(b) = in_body.get_mut(m.point as usize) {
            *b = true;
        }
    }
    let mut found: Option<(usize, u32, f32)> = None;
    for (i, (p, info)) in packed.pos.iter().zip(&packed.point_info).enumerate() {
        if !in_body[i] || info.inv_mass == 0.0 {
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

/// [`in_collider_skin`] as the warning the solvers log when they are
/// built, or `None`.
pub fn skin_warning(packed: &Packed) -> Option<String> {
    let (n, first, deepest) = in_collider_skin(packed)?;
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
    /// planet's surface (its hub clear); built a point radius clear, and
    /// for a free point, nothing is reported.
    #[test]
    fn bodies_built_in_a_colliders_skin_are_found() {
        let mut world = World::default();
        world.add_plane(HalfPlane::floor(0.0)).unwrap();
        let r = world.params.point_radius;
        BoxShape::new(Vec2::new(-3.0, 0.25 + r + 0.001), Vec2::splat(0.5))
            .build(&mut world)
            .unwrap();
        world.add_point(Point::new(Vec2::new(5.0, 0.0))).unwrap();
        assert_eq!(in_collider_skin(&packed(&world)), None);
        assert_eq!(skin_warning(&packed(&world)), None);
        BoxShape::new(Vec2::new(0.0, 0.25), Vec2::splat(0.5))
            .build(&mut world)
            .unwrap();
        let (n, first, deepest) = in_collider_skin(&packed(&world)).unwrap();
        assert_eq!(n, 2, "the bottom corners");
        assert!((deepest - r).abs() < 1e-6, "{deepest}");
        assert!(world.points()[first as usize].pos.y < 1e-6);
        let warning = skin_warning(&packed(&world)).unwrap();
        assert!(warning.starts_with("2 points of bodies"), "{warning}");
        world
            .add_planet(Planet::new(Vec2::new(20.0, 0.0), 2.0))
            .unwrap();
        Wheel::new(Vec2::new(20.0, 2.5), 0.5, 12)
            .build(&mut world)
            .unwrap();
        assert_eq!(in_collider_skin(&packed(&world)).unwrap().0, 3);
    }
}
