//! An event no hook wants costs one mask test: proven here by a global
//! allocator that counts the allocations of the thread under test.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use common::{Ev, append, run, started, step};
use io_hooks::{Flow, Hooks};

struct Counting;

thread_local! {
    // Const-initialised and without a destructor, so reading them from the
    // allocator never allocates.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every method forwards to `System` unchanged; counting touches only
// thread-local `Cell`s, which neither allocate nor unwind.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: `ptr` and `layout` come from this allocator, i.e. `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` and `layout` come from this allocator, i.e. `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocations `f` makes on this thread.
fn allocations<R>(f: impl FnOnce() -> R) -> (R, usize) {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (r, ALLOCATIONS.with(Cell::get))
}

#[test]
fn an_unwanted_event_allocates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::new(
        vec![
            append(&dir.path().join("a"), &["finished"], Flow::Cancel),
            run(&["/bin/false"], 5000, &["tool_call"], Flow::Cancel),
        ],
        dir.path(),
    );
    let ev = started("goal");
    let (flow, n) = allocations(|| hooks.fire_event(&ev));
    assert_eq!((flow, n), (Flow::Continue, 0));
    let (flow, n) = allocations(|| hooks.fire(&ev, &ev));
    assert_eq!((flow, n), (Flow::Continue, 0));
    let (flow, n) = allocations(|| hooks.fire_with(&ev, &ev, |_| {}));
    assert_eq!((flow, n), (Flow::Continue, 0));

    // No hooks at all is the same path.
    let none = Hooks::<Ev>::new(Vec::new(), dir.path());
    let (flow, n) = allocations(|| none.fire_event(&step(1)));
    assert_eq!((flow, n), (Flow::Continue, 0));
}

#[test]
fn the_counter_does_count_a_wanted_event() {
    // The control: without it, a counter that never counts would pass above.
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::new(
        vec![append(&dir.path().join("a"), &["finished"], Flow::Cancel)],
        dir.path(),
    );
    let (flow, n) = allocations(|| hooks.fire_event(&Ev::Finished { run_id: 1 }));
    assert_eq!(flow, Flow::Continue);
    assert!(n > 0, "a matching event serialises, so it allocates");
}

#[test]
fn an_event_every_filter_turns_away_allocates_nothing() {
    // Wanted by kind, so past the mask test; turned away by `where` on the
    // event itself, before anything is serialised.
    let dir = tempfile::tempdir().unwrap();
    let text = "[[hook]]\non = [\"tool_call\"]\nwhere.tool = [\"exec\", { glob = \"write_*\" }]\n\
                append = \"a\"\n";
    let specs = io_hooks::TomlFile::new("t.toml", text)
        .hooks::<Ev>(dir.path())
        .unwrap();
    let hooks = Hooks::new(specs, dir.path());
    let read = Ev::ToolCall {
        run_id: 1,
        tool: "read_file".into(),
    };
    let (flow, n) = allocations(|| hooks.fire_event(&read));
    assert_eq!((flow, n), (Flow::Continue, 0));
    // The control: one it lets through is serialised.
    let exec = Ev::ToolCall {
        run_id: 1,
        tool: "exec".into(),
    };
    let (_, n) = allocations(|| hooks.fire_event(&exec));
    assert!(n > 0, "a passing event serialises, so it allocates");
}

#[test]
fn an_event_turned_away_on_a_unit_enum_field_allocates_nothing() {
    // `#[hook(unit_enum)]` reads the variant's name from its `Serialize`,
    // into a serializer that keeps only the `&'static str` serde hands it.
    #[derive(serde::Serialize)]
    #[serde(rename_all = "snake_case")]
    enum Outcome {
        Completed,
        Cancelled,
    }
    #[derive(io_hooks::HookEvents, serde::Serialize)]
    #[serde(tag = "event")]
    enum Fin {
        #[serde(rename = "finished")]
        Finished {
            #[hook(unit_enum)]
            outcome: Outcome,
        },
    }
    let dir = tempfile::tempdir().unwrap();
    let text = "[[hook]]\non = [\"finished\"]\nwhere.outcome = \"cancelled\"\nappend = \"a\"\n";
    let specs = io_hooks::TomlFile::new("t.toml", text)
        .hooks::<Fin>(dir.path())
        .unwrap();
    let hooks = Hooks::new(specs, dir.path());
    let completed = Fin::Finished {
        outcome: Outcome::Completed,
    };
    let (flow, n) = allocations(|| hooks.fire_event(&completed));
    assert_eq!((flow, n), (Flow::Continue, 0));
    // The control: the one it names is let through and serialised.
    let cancelled = Fin::Finished {
        outcome: Outcome::Cancelled,
    };
    let (_, n) = allocations(|| hooks.fire_event(&cancelled));
    assert!(n > 0, "a passing event serialises, so it allocates");
}
