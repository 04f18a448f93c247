//! Whole-world measurements for reports and traces: energies, momenta,
//! speeds, and the bodies' rigid frames of any state.

use glam::Vec2;

use crate::error::WorldError;
use crate::layout::BodyFrame;
use crate::pack::{Packed, check_state_len};

/// Sums over the free points of a state (pinned points have infinite mass
/// and never move, so they carry no kinetic energy or momentum and are left
/// out of all sums). Sums are in f64.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    /// `sum m |v|^2 / 2`, J.
    pub kinetic: f64,
    /// Gravitational potential energy `sum -m g . p`, J (zero at the origin).
    pub potential: f64,
    /// Linear momentum `sum m v`, kg m/s.
    pub momentum: [f64; 2],
    /// Angular momentum about the origin `sum m (p x v)`, kg m^2/s.
    pub angular_momentum: f64,
    /// Largest speed of any point (pinned ones included), m/s; NaN when a
    /// velocity is. In f64, so that velocities near the f32 range do not
    /// read as infinite speeds.
    pub max_speed: f64,
    /// Mean height `y` of all points, m.
    pub mean_height: f64,
    /// Whether every position and velocity is finite.
    pub finite: bool,
}

/// The [`Totals`] of a state of `packed`'s world under `gravity`; the state
/// must have one position and one velocity per point (else
/// [`WorldError::LengthMismatch`]), and may be non-finite.
pub fn totals(
    packed: &Packed,
    gravity: Vec2,
    pos: &[[f32; 2]],
    vel: &[[f32; 2]],
) -> Result<Totals, WorldError> {
    check_state_len(packed.pos.len(), pos, vel)?;
    let mut t = Totals {
        finite: true,
        ..Totals::default()
    };
    let (gx, gy) = (gravity.x as f64, gravity.y as f64);
    for ((p, v), info) in pos.iter().zip(vel).zip(&packed.point_info) {
        t.finite &= p.iter().chain(v).all(|x| x.is_finite());
        // NaN once any speed is (f64::max would pass over it).
        let speed = (v[0] as f64).hypot(v[1] as f64);
        t.max_speed = if speed.is_nan() || t.max_speed.is_nan() {
            f64::NAN
        } else {
            t.max_speed.max(speed)
        };
        t.mean_height += p[1] as f64;
        if info.inv_mass == 0.0 {
            continue;
        }
        let m = 1.0 / info.inv_mass as f64;
        let (px, py, vx, vy) = (p[0] as f64, p[1] as f64, v[0] as f64, v[1] as f64);
        t.kinetic += 0.5 * m * (vx * vx + vy * vy);
        t.potential -= m * (gx * px + gy * py);
        t.momentum[0] += m * vx;
        t.momentum[1] += m * vy;
        t.angular_momentum += m * (px * vy - py * vx);
    }
    t.mean_height /= pos.len().max(1) as f64;
    Ok(t)
}

/// Each body's best-fit rigid frame (centroid, rotation from rest, mean
/// velocity, angular velocity) for the state `pos`, `vel`, computed by the
/// CPU mirror of the shape-matching kernel; the state must have one
/// position and one velocity per point (else
/// [`WorldError::LengthMismatch`]).
pub fn body_frames(
    packed: &Packed,
    pos: &[[f32; 2]],
    vel: &[[f32; 2]],
) -> Result<Vec<BodyFrame>, WorldError> {
    check_state_len(packed.pos.len(), pos, vel)?;
    let mut frames = vec![BodyFrame::default(); packed.bodies.len()];
    let mut dilation = vec![0.0; packed.bodies.len()];
    crate::cpu::shape_match::frames(
        &packed.sim,
        &packed.bodies,
        &packed.members,
        pos,
        vel,
        &mut frames,
        &mut dilation,
        &mut packed.inflations(),
        false,
    );
    Ok(frames)
}

/// The angle of a frame's rotation, radians counter-clockwise from the
/// rest shape, in `(-pi, pi]`.
pub fn frame_angle(frame: &BodyFrame) -> f32 {
    frame.rot[1].atan2(frame.rot[0])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;

    fn packed() -> Packed {
        let mut w = World::default();
        w.add_point(Point::new(Vec2::ZERO).mass(2.0)).unwrap();
        w.add_point(Point::new(Vec2::X).pinned()).unwrap();
        Packed::from_world(&w).unwrap()
    }

    #[test]
    fn totals_sum_free_points_and_measure_speed_in_f64() {
        let p = packed();
        let g = Vec2::new(0.0, -10.0);
        let t = totals(&p, g, &[[1.0, 2.0], [5.0, 5.0]], &[[3.0, 4.0], [0.0, 0.0]]).unwrap();
        assert_eq!(t.kinetic, 25.0); // 2 kg at 5 m/s; the pinned point carries none
        assert_eq!(t.potential, 40.0);
        assert_eq!(t.momentum, [6.0, 8.0]);
        assert_eq!(t.angular_momentum, 2.0 * (1.0 * 4.0 - 2.0 * 3.0));
        assert_eq!(t.max_speed, 5.0);
        assert_eq!(t.mean_height, 3.5);
        assert!(t.finite);
        // A finite velocity whose length overflows f32 is a finite speed
        // (the length is taken in f64: an f32 length would be infinite).
        let big = 3.0e38f32;
        let t = totals(&p, g, &[[0.0, 0.0], [1.0, 0.0]], &[[big, big], [0.0, 0.0]]).unwrap();
        assert!(t.finite);
        let want = big as f64 * std::f64::consts::SQRT_2;
        assert!((t.max_speed / want - 1.0).abs() < 1e-12, "{}", t.max_speed);
        let t = totals(
            &p,
            g,
            &[[f32::NAN, 0.0], [1.0, 0.0]],
            &[[0.0, 0.0], [0.0, 0.0]],
        )
        .unwrap();
        assert!(!t.finite);
        assert_eq!(t.max_speed, 0.0);
        // A NaN velocity anywhere, first or last, makes the speed NaN.
        for vel in [[[f32::NAN, 0.0], [1.0, 0.0]], [[1.0, 0.0], [0.0, f32::NAN]]] {
            let t = totals(&p, g, &[[0.0, 0.0], [1.0, 0.0]], &vel).unwrap();
            assert!(!t.finite);
            assert!(t.max_speed.is_nan(), "{vel:?}: {}", t.max_speed);
        }
    }

    /// A body turned by a known angle about a known centre reads that
    /// angle and centroid (the program writes both); one point is its own
    /// mean height.
    #[test]
    fn frames_measure_a_turned_body_and_one_point_is_its_own_mean() {
        let mut w = World::default();
        let square = [Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y];
        let points = square.map(|q| w.add_point(Point::new(q)).unwrap());
        w.add_body(Body::new(points.to_vec())).unwrap();
        let p = Packed::from_world(&w).unwrap();
        let (angle, centre) = (0.5f32, Vec2::new(3.0, -1.0));
        let turn = Vec2::from_angle(angle);
        let pos: Vec<[f32; 2]> = square
            .iter()
            .map(|&q| (centre + turn.rotate(q - Vec2::splat(0.5))).to_array())
            .collect();
        let frames = body_frames(&p, &pos, &[[0.0; 2]; 4]).unwrap();
        let got = frame_angle(&frames[0]);
        assert!((got - angle).abs() < 1e-5, "angle {got}, turned by {angle}");
        let c = Vec2::from_array(frames[0].centroid);
        assert!((c - centre).length() < 1e-5, "centroid {c}");

        let mut one = World::default();
        one.add_point(Point::new(Vec2::new(0.0, 2.5))).unwrap();
        let p = Packed::from_world(&one).unwrap();
        let t = totals(&p, Vec2::ZERO, &p.pos, &p.vel).unwrap();
        assert_eq!(t.mean_height, 2.5);
    }
}
