//! Builders for the shapes users make all the time.
