//! Error accumulation, after serde_derive's `internals/ctxt.rs`: every check
//! records its error and goes on, so one compile reports them all.

use std::cell::RefCell;
use std::fmt::Display;
use std::thread;

use quote::ToTokens;

#[derive(Default)]
pub(crate) struct Ctxt {
    // `None` once `check` has run; `Drop` panics if it never did, so an
    // error cannot be recorded and then silently lost.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error spanning `tokens`.
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error produced by syn.
    pub(crate) fn syn_error(&self, err: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(err);
        }
    }

    /// All recorded errors folded into one, or `Ok` when there were none.
    pub(crate) fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.borrow_mut().take().into_iter().flatten();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for rest in errors {
            combined.combine(rest);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !thread::panicking() && self.errors.borrow().is_some() {
            panic!("forgot to check for errors");
        }
    }
}
