//! Running a stage's independent items on one thread or on all (rayon).
//! Every stage is a map over items that read only the stage's inputs, so
//! the result is bitwise the same whatever the thread count.

/// Fewer items than this run on the calling thread: splitting them costs
/// more than it saves (a fork and join wakes the other threads, tens of
/// microseconds on a small VM, where a point's stage work is well under a
/// microsecond).
pub const MIN_PARALLEL_ITEMS: usize = 1024;

/// Whether `len` items go to all threads.
#[cfg(feature = "parallel")]
#[inline]
fn spread(parallel: bool, len: usize) -> bool {
    parallel && len >= MIN_PARALLEL_ITEMS
}

/// Writes `f(i)` into `out[i]` for every `i`.
pub fn map<T: Send, F: Fn(usize) -> T + Sync + Send>(parallel: bool, out: &mut [T], f: F) {
    #[cfg(feature = "parallel")]
    if spread(parallel, out.len()) {
        use rayon::prelude::*;
        out.par_iter_mut().enumerate().for_each(|(i, o)| *o = f(i));
        return;
    }
    let _ = parallel;
    for (i, o) in out.iter_mut().enumerate() {
        *o = f(i);
    }
}

/// Calls `f(i, &mut a[i], &mut b[i])` for every `i`.
pub fn zip_mut<A: Send, B: Send, F: Fn(usize, &mut A, &mut B) + Sync + Send>(
    parallel: bool,
    a: &mut [A],
    b: &mut [B],
    f: F,
) {
    #[cfg(feature = "parallel")]
    if spread(parallel, a.len()) {
        use rayon::prelude::*;
        a.par_iter_mut()
            .zip(b.par_iter_mut())
            .enumerate()
            .for_each(|(i, (x, y))| f(i, x, y));
        return;
    }
    let _ = parallel;
    for (i, (x, y)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
        f(i, x, y);
    }
}

/// Calls `f(i, &mut a[i], &mut b[i], &mut c[i])` for every `i`.
pub fn zip3_mut<A: Send, B: Send, C: Send, F: Fn(usize, &mut A, &mut B, &mut C) + Sync + Send>(
    parallel: bool,
    a: &mut [A],
    b: &mut [B],
    c: &mut [C],
    f: F,
) {
    #[cfg(feature = "parallel")]
    if spread(parallel, a.len()) {
        use rayon::prelude::*;
        a.par_iter_mut()
            .zip(b.par_iter_mut())
            .zip(c.par_iter_mut())
            .enumerate()
            .for_each(|(i, ((x, y), z))| f(i, x, y, z));
        return;
    }
    let _ = parallel;
    for (i, ((x, y), z)) in a.iter_mut().zip(b.iter_mut()).zip(c.iter_mut()).enumerate() {
        f(i, x, y, z);
    }
}

/// Calls `f(i, &mut a[i], &mut b[i], Some(&mut c[i]))` for every `i`, or
/// with `None` where there is no `c`.
pub fn zip_mut_with<A: Send, B: Send, C: Send, F>(
    parallel: bool,
    a: &mut [A],
    b: &mut [B],
    c: Option<&mut [C]>,
    f: F,
) where
    F: Fn(usize, &mut A, &mut B, Option<&mut C>) + Sync + Send,
{
    match c {
        Some(c) => zip3_mut(parallel, a, b, c, |i, x, y, z| f(i, x, y, Some(z))),
        None => zip_mut(parallel, a, b, |i, x, y| f(i, x, y, None)),
    }
}

/// Calls `f(i, &mut a[i])` for every `i`.
pub fn map_in_place<A: Send, F: Fn(usize, &mut A) + Sync + Send>(
    parallel: bool,
    a: &mut [A],
    f: F,
) {
    #[cfg(feature = "parallel")]
    if spread(parallel, a.len()) {
        use rayon::prelude::*;
        a.par_iter_mut().enumerate().for_each(|(i, x)| f(i, x));
        return;
    }
    let _ = parallel;
    for (i, x) in a.iter_mut().enumerate() {
        f(i, x);
    }
}
