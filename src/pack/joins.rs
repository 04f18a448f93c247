//! Which bodies of one assembly collide with each other: every pair but
//! the joined ones, as Box2D's joints leave `collideConnected` off.
//!
//! Two bodies are **joined** when they share a point, or when a spring or
//! rod links a point of one to a point of the other (one whose ends are
//! both in some body is that body's own, and joins nothing). A point does not
//! collide with the bodies joined to a body it is a member of (its own
//! included); every other body of its assembly it meets as it meets a body
//! of another assembly. So the links of a chain hinged at shared corners
//! lie on each other instead of passing through, and a hinge's two bodies
//! do not fight over the points they share.
//!
//! The lists live in `outline_points`: each body's list `[n, b_1 .. b_n]`
//! (ascending, itself included; `[1, b]` for a body alone in its assembly)
//! right behind its outline, at `first + count`, where tangle recovery
//! reads it; and for each point shared by bodies with different lists,
//! their union, right behind the list of the last body holding it. A point's
//! `ContactPoint::joins` names its list; a point of a body alone in its
//! assembly, or a point in no body, has `NO_JOINS` and collides with no
//! body of its assembly.

use std::collections::HashMap;

use crate::layout::NO_JOINS;

use super::{Packed, PointMembers};

/// The bodies joined to each of the bodies `b0..b0 + groups.len()` (whose
/// assemblies are `groups`), ascending and with the body itself (alone,
/// for a body alone in its assembly). The
/// bodies' points are `b0..` members in `members`; `springs` are the
/// springs and rods that link their points, as point index pairs.
pub(super) fn joined_bodies(
    b0: usize,
    groups: &[u32],
    members: &PointMembers,
    body_points: impl Iterator<Item = impl Iterator<Item = usize>>,
    springs: impl Iterator<Item = (u32, u32)>,
) -> Vec<Vec<u32>> {
    let mut in_group: HashMap<u32, u32> = HashMap::new();
    for &g in groups {
        *in_group.entry(g).or_default() += 1;
    }
    let shared = |k: usize| in_group[&groups[k]] > 1;
    let mut joined: Vec<Vec<u32>> = vec![Vec::new(); groups.len()];
    for (k, points) in body_points.enumerate() {
        joined[k].push((b0 + k) as u32);
        if !shared(k) {
            continue;
        }
        for p in points {
            joined[k].extend(members.of(p).iter().map(|m| m.body));
        }
    }
    for (a, b) in springs {
        // A spring within a body (an edge, a diagonal) joins no bodies,
        // even where its ends are shared with others.
        let (ma, mb) = (members.of(a as usize), members.of(b as usize));
        if ma.iter().any(|x| mb.iter().any(|y| x.body == y.body)) {
            continue;
        }
        for ma in ma {
            for mb in mb {
                joined[ma.body as usize - b0].push(mb.body);
                joined[mb.body as usize - b0].push(ma.body);
            }
        }
    }
    for j in &mut joined {
        j.sort_unstable();
        j.dedup();
    }
    joined
}

/// Appends a list of joined bodies to `outline_points` and returns where
/// it starts.
pub(super) fn push_joins(outline_points: &mut Vec<u32>, joined: &[u32]) -> u32 {
    let at = outline_points.len() as u32;
    outline_points.push(joined.len() as u32);
    outline_points.extend_from_slice(joined);
    at
}

/// The union of the lists `joined` of the bodies `bodies` (those first
/// packed at `b0`) that a shared point is a member of, appended to
/// `outline_points` once per distinct union (`unions`) and where it
/// starts; `None` when its bodies' lists are all the same (the point takes
/// that list: [`point_joins`]). Packing calls it right behind the list of
/// the point's last body, so that an append lays the lists out as a fresh
/// pack does.
pub(super) fn union_joins(
    outline_points: &mut Vec<u32>,
    mut bodies: impl Iterator<Item = u32>,
    b0: usize,
    joined: &[Vec<u32>],
    unions: &mut HashMap<Vec<u32>, u32>,
) -> Option<u32> {
    let first = bodies.next()? as usize - b0;
    let mut union: Option<Vec<u32>> = None;
    for k in bodies.map(|b| b as usize - b0) {
        if joined[k] != joined[first] {
            union
                .get_or_insert_with(|| joined[first].clone())
                .extend_from_slice(&joined[k]);
        }
    }
    let mut union = union?;
    union.sort_unstable();
    union.dedup();
    if let Some(&at) = unions.get(&union) {
        return Some(at);
    }
    let at = push_joins(outline_points, &union);
    unions.insert(union, at);
    Some(at)
}

/// The [`ContactPoint::joins`](crate::layout::ContactPoint::joins) of a
/// point whose first body (of those first packed at `b0`, whose lists
/// `joined` start at `starts`) is `first`, and whose bodies' lists are all
/// that one's: [`NO_JOINS`] in no body or in a body alone in its
/// assembly, else its body's list.
pub(super) fn point_joins(
    first: Option<u32>,
    b0: usize,
    joined: &[Vec<u32>],
    starts: &[u32],
) -> u32 {
    match first.map(|b| b as usize - b0) {
        Some(k) if joined[k].len() > 1 => starts[k],
        _ => NO_JOINS,
    }
}

impl Packed {
    /// Whether bodies collide and some body is joined to another (a list
    /// longer than the body itself): the narrow phase's list search
    /// (WGSL `HAS_JOINS`) and the scene hash's lists need it then alone.
    pub fn has_joined_bodies(&self) -> bool {
        self.packed_body_collisions
            && self
                .outlines
                .iter()
                .any(|o| self.outline_points[(o.first + o.count) as usize] > 1)
    }

    /// The outlines' points, summed over the bodies (their lists of joined
    /// bodies left out): half the drawing's body edge indices.
    pub fn outline_len(&self) -> usize {
        self.outlines.iter().map(|o| o.count as usize).sum()
    }
}
