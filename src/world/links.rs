//! Which springs and bodies hold each point: what a removal reads to find
//! the items a removed or moved point touches without a pass over the
//! world.

/// Each point's springs and bodies, by index, in no particular order.
/// Derived from the items (every edit keeps it up to date), so two worlds
/// with the same items are equal whatever order their links were made in.
#[derive(Clone, Debug, Default)]
pub(crate) struct Links {
    springs: Vec<Vec<u32>>,
    bodies: Vec<Vec<u32>>,
}

impl PartialEq for Links {
    /// Always: the links follow from the items, which [`World`](super::World)
    /// compares.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Replaces `from` by `to` in `list` (where it is once).
fn rename(list: &mut [u32], from: u32, to: u32) {
    if let Some(x) = list.iter_mut().find(|x| **x == from) {
        *x = to;
    }
}

/// Takes `item` out of `list` (where it is once).
fn take(list: &mut Vec<u32>, item: u32) {
    if let Some(i) = list.iter().position(|&x| x == item) {
        list.swap_remove(i);
    }
}

impl Links {
    pub(crate) fn add_point(&mut self) {
        self.springs.push(Vec::new());
        self.bodies.push(Vec::new());
    }

    pub(crate) fn add_spring(&mut self, spring: u32, a: u32, b: u32) {
        self.springs[a as usize].push(spring);
        self.springs[b as usize].push(spring);
    }

    pub(crate) fn add_body(&mut self, body: u32, points: impl Iterator<Item = u32>) {
        for p in points {
            self.bodies[p as usize].push(body);
        }
    }

    /// The springs that touch point `p`.
    pub(crate) fn springs_of(&self, p: u32) -> &[u32] {
        &self.springs[p as usize]
    }

    /// The bodies that hold point `p`.
    pub(crate) fn bodies_of(&self, p: u32) -> &[u32] {
        &self.bodies[p as usize]
    }

    /// Spring `spring` no longer touches `p`.
    pub(crate) fn take_spring(&mut self, p: u32, spring: u32) {
        take(&mut self.springs[p as usize], spring);
    }

    /// Body `body` no longer holds `p`.
    pub(crate) fn take_body(&mut self, p: u32, body: u32) {
        take(&mut self.bodies[p as usize], body);
    }

    /// Spring `from`, touching `p`, is now spring `to`.
    pub(crate) fn rename_spring(&mut self, p: u32, from: u32, to: u32) {
        rename(&mut self.springs[p as usize], from, to);
    }

    /// Body `from`, holding `p`, is now body `to`.
    pub(crate) fn rename_body(&mut self, p: u32, from: u32, to: u32) {
        rename(&mut self.bodies[p as usize], from, to);
    }

    /// Point `from`'s links are now point `to`'s (whose own went with it).
    pub(crate) fn move_point(&mut self, from: u32, to: u32) {
        let (from, to) = (from as usize, to as usize);
        self.springs[to] = std::mem::take(&mut self.springs[from]);
        self.bodies[to] = std::mem::take(&mut self.bodies[from]);
    }

    /// Keeps the links of the first `points` points, to springs below
    /// `springs` and bodies below `bodies`: undoes the additions since a
    /// transaction's mark. Only the points an undone item touched are
    /// visited (`touched`).
    pub(crate) fn truncate(
        &mut self,
        points: usize,
        (springs, bodies): (u32, u32),
        touched: impl Iterator<Item = u32>,
    ) {
        self.springs.truncate(points);
        self.bodies.truncate(points);
        for p in touched.filter(|&p| (p as usize) < points) {
            self.springs[p as usize].retain(|&s| s < springs);
            self.bodies[p as usize].retain(|&b| b < bodies);
        }
    }

    /// The points' links cut to `n` points.
    pub(crate) fn truncate_points(&mut self, n: usize) {
        self.springs.truncate(n);
        self.bodies.truncate(n);
    }
}

impl Links {
    /// Whether these are the links of `n` points with these springs' ends
    /// and bodies' points, in any order: what every edit must keep.
    pub(crate) fn hold(&self, n: usize, springs: &[super::Spring], bodies: &[super::Body]) -> bool {
        let mut fresh = Links::default();
        (0..n).for_each(|_| fresh.add_point());
        for (i, s) in springs.iter().enumerate() {
            fresh.add_spring(i as u32, s.a.0, s.b.0);
        }
        for (i, b) in bodies.iter().enumerate() {
            fresh.add_body(i as u32, b.points.iter().map(|p| p.0));
        }
        let sorted = |v: &[Vec<u32>]| -> Vec<Vec<u32>> {
            v.iter()
                .map(|l| {
                    let mut l = l.clone();
                    l.sort_unstable();
                    l
                })
                .collect()
        };
        sorted(&self.springs) == sorted(&fresh.springs)
            && sorted(&self.bodies) == sorted(&fresh.bodies)
    }
}
