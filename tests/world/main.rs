//! The world and its parameters: every bad item (`bad_input`) or parameter
//! (`params`) is refused with a typed error that names it, through every
//! entry point; parameters convert to and from a frequency.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod params;
