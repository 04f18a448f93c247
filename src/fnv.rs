//! FNV-1a, 64 bits: small and stable across platforms and Rust versions
//! (unlike `std`'s `DefaultHasher`), for the scene hash and the
//! checkpoints' checksum.

/// An FNV-1a hash being fed.
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// A tagged slice of plain values: its tag, length and bytes.
    pub(crate) fn slice<T: bytemuck::Pod>(&mut self, tag: &str, items: &[T]) {
        self.bytes(tag.as_bytes());
        self.bytes(&(items.len() as u64).to_le_bytes());
        self.bytes(bytemuck::cast_slice(items));
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

/// The FNV-1a hash of `bytes`.
pub(crate) fn fnv(bytes: &[u8]) -> u64 {
    let mut h = Fnv::new();
    h.bytes(bytes);
    h.finish()
}
