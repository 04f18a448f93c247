//! naga helpers for the shader tests: parse and validate a WGSL source,
//! and compare a WGSL struct's layout with a Rust struct's.

/// `source` parsed and validated by naga; a test failure naming `name`
/// and the error, with its place in the source, otherwise.
pub fn parse_and_validate(name: &str, source: &str) -> naga::Module {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name}: WGSL parse error:\n{}", e.emit_to_string(source)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| {
        panic!(
            "{name}: WGSL validation error:\n{}",
            e.emit_to_string(source)
        )
    });
    module
}

/// `(size, [(field, offset)])` of the WGSL struct `name` in naga's layout.
pub fn naga_layout(module: &naga::Module, name: &str) -> (u32, Vec<(String, u32)>) {
    for (_, ty) in module.types.iter() {
        if ty.name.as_deref() == Some(name)
            && let naga::TypeInner::Struct { members, span } = &ty.inner
        {
            let fields = members
                .iter()
                .map(|m| (m.name.clone().unwrap(), m.offset))
                .collect();
            return (*span, fields);
        }
    }
    panic!("struct {name} not found");
}

/// Asserts that the WGSL struct (named like the Rust type, or given as a
/// string) has the Rust struct's size and its fields' names and offsets,
/// in order.
#[allow(unused_macros)]
macro_rules! check_layout {
    ($module:expr, $ty:ident, [$($field:ident),* $(,)?]) => {
        check_layout!($module, stringify!($ty), $ty, [$($field),*])
    };
    ($module:expr, $wgsl:expr, $ty:ty, [$($field:ident),* $(,)?]) => {{
        let (size, fields) = common::naga::naga_layout(&$module, $wgsl);
        let rust: Vec<(String, u32)> =
            vec![$((stringify!($field).to_string(), std::mem::offset_of!($ty, $field) as u32)),*];
        assert_eq!(fields, rust, "{}: field names and offsets differ between WGSL (left) and Rust (right)", $wgsl);
        assert_eq!(size as usize, std::mem::size_of::<$ty>(), "{}: size differs between WGSL and Rust", $wgsl);
    }};
}
#[allow(unused_imports)]
pub(crate) use check_layout;
