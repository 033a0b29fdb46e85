//! A crate the demo run works on.
