//! An embedder's own action through the public plug-in: the `webhook`
//! action of `examples/webhook/`, read from TOML beside `append` and `run`,
//! fired at a real HTTP listener on 127.0.0.1 that each test starts, and
//! given `on`, `where`, `on_failure`, the project-scope refusal, unknown
//! keys and their near misses, and the messages, by the engine.

#[path = "../examples/webhook/action.rs"]
mod action;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use action::{WebhookFailure, WebhookKind};
use io_hooks::{Effects, Flow, HookEvents, HookFailure, Hooks, Layout, TableErrorKind, TomlFile};

#[derive(HookEvents, serde::Serialize)]
#[serde(tag = "event")]
enum Ev {
    #[serde(rename = "deployed")]
    Deployed {
        #[hook(values = ["prod", "staging"])]
        target: String,
    },
    #[serde(rename = "rolled_back")]
    RolledBack,
}

/// What a listener answers each request with.
#[derive(Clone, Copy)]
enum Answer {
    /// This status line's code.
    Status(u16),
    /// Nothing, until the client goes away.
    Never,
}

/// A real HTTP listener on 127.0.0.1: answers each request it is sent as
/// `answer` says, and hands over each request's head and body.
struct Listener {
    port: u16,
    requests: mpsc::Receiver<(String, String)>,
    thread: Option<JoinHandle<()>>,
}

impl Listener {
    /// Serves `count` requests, then ends.
    fn start(answer: Answer, count: usize) -> Listener {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a port on 127.0.0.1");
        let port = listener.local_addr().expect("its address").port();
        let (tx, requests) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            for _ in 0..count {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                let Some(request) = serve(stream, answer) else {
                    continue;
                };
                if tx.send(request).is_err() {
                    return;
                }
            }
        });
        Listener {
            port,
            requests,
            thread: Some(thread),
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hooks/deploy", self.port)
    }

    /// The next request's head and body, waited for up to 10 s.
    fn next(&self) -> (String, String) {
        self.requests
            .recv_timeout(Duration::from_secs(10))
            .expect("a request within 10 s")
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            // Every test sends exactly the requests it started the
            // listener for; a test that failed before may not have.
            if thread.is_finished() || !std::thread::panicking() {
                thread.join().expect("the listener thread");
            }
        }
    }
}

/// Reads one request and answers it; `None` when the client went away.
fn serve(stream: TcpStream, answer: Answer) -> Option<(String, String)> {
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().ok()?;
        }
        head.push_str(&line);
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let request = (head, String::from_utf8(body).ok()?);
    match answer {
        Answer::Status(code) => {
            let status = format!("HTTP/1.1 {code} Whatever\r\nContent-Length: 0\r\n\r\n");
            reader.get_mut().write_all(status.as_bytes()).ok()?;
        }
        Answer::Never => {
            // Hold the connection until the client gives up and closes it.
            let mut rest = Vec::new();
            let _ = reader.read_to_end(&mut rest);
        }
    }
    Some(request)
}

fn layout() -> Layout {
    Layout::new().action(WebhookKind)
}

fn load(text: &str) -> Result<Vec<io_hooks::HookSpec<Ev>>, io_hooks::TableError> {
    let layout = layout();
    TomlFile::new("deploy.local.toml", text)
        .layout(&layout)
        .hooks::<Ev>(Path::new("/p"))
}

fn load_err(text: &str) -> String {
    load(text).expect_err("refused").to_string()
}

#[test]
fn a_webhook_posts_each_matching_events_line_and_its_where_filters() {
    let listener = Listener::start(Answer::Status(204), 2);
    let text = format!(
        "[[hook]]\non = [\"deployed\"]\nwhere.target = \"prod\"\nwebhook = \"{}\"\n",
        listener.url()
    );
    let dir = tempfile::tempdir().unwrap();
    let layout = layout();
    let specs = TomlFile::new("deploy.local.toml", &text)
        .layout(&layout)
        .hooks::<Ev>(dir.path())
        .unwrap();
    assert_eq!(specs[0].action.key(), "webhook");
    assert_eq!(specs[0].action.effects(), Effects::SENDS_REQUEST);
    assert_eq!(
        specs[0].action.describe(dir.path()),
        format!("post to {} (timeout 5000 ms)", listener.url())
    );
    let hooks = Hooks::new(specs, dir.path());
    assert!(hooks.problems().is_empty(), "{:?}", hooks.problems());
    let staging = Ev::Deployed {
        target: "staging".into(),
    };
    let prod = Ev::Deployed {
        target: "prod".into(),
    };
    for event in [&Ev::RolledBack, &staging, &prod, &prod] {
        assert_eq!(hooks.fire_event(event), Flow::Continue);
    }
    for _ in 0..2 {
        let (head, body) = listener.next();
        assert!(
            head.starts_with("POST /hooks/deploy HTTP/1.1\r\n"),
            "{head}"
        );
        assert!(
            head.contains("Content-Type: application/json\r\n"),
            "{head}"
        );
        assert_eq!(body, "{\"event\":\"deployed\",\"target\":\"prod\"}\n");
    }
}

#[test]
fn an_answer_that_is_not_2xx_is_a_failure_of_the_actions_own_and_can_cancel() {
    let listener = Listener::start(Answer::Status(500), 1);
    let text = format!(
        "[[hook]]\nwebhook = \"{}\"\non_failure = \"cancel\"\n",
        listener.url()
    );
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::new(load(&text).unwrap(), dir.path());
    let mut seen = Vec::new();
    let flow = hooks.fire_with(&Ev::RolledBack, &Ev::RolledBack, |run| {
        let Err(HookFailure::Action { action, cause }) = run.result else {
            panic!("not the action's own failure: {:?}", run.result);
        };
        assert_eq!(*action, "webhook");
        assert_eq!(
            cause.downcast_ref::<WebhookFailure>(),
            Some(&WebhookFailure::Status(500))
        );
        seen.push(format!(
            "hook[{}] {}",
            run.number(),
            run.result.unwrap_err()
        ));
    });
    assert_eq!(flow, Flow::Cancel);
    assert_eq!(seen, ["hook[1] the server answered 500, not 2xx"]);
    assert_eq!(listener.next().1, "{\"event\":\"rolled_back\"}\n");
}

#[test]
fn a_server_that_never_answers_fails_the_hook_at_its_timeout() {
    let listener = Listener::start(Answer::Never, 1);
    let text = format!(
        "[[hook]]\nwebhook = \"{}\"\ntimeout_ms = 300\n",
        listener.url()
    );
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::new(load(&text).unwrap(), dir.path());
    let mut failures = Vec::new();
    let started = Instant::now();
    let flow = hooks.fire_with(&Ev::RolledBack, &Ev::RolledBack, |run| {
        failures.push(run.result.map_err(ToString::to_string));
    });
    let took = started.elapsed();
    assert_eq!(flow, Flow::Continue);
    assert_eq!(failures, [Err("no answer within 300 ms".to_owned())]);
    assert!(took >= Duration::from_millis(300), "{took:?}");
    // Bounded: far below anything but a stalled machine.
    assert!(took < Duration::from_secs(10), "{took:?}");
    // The listener got the request, and ends when the client has closed.
    assert_eq!(listener.next().1, "{\"event\":\"rolled_back\"}\n");
}

#[test]
fn a_webhooks_values_are_refused_at_load_with_the_key_path_line_and_column() {
    assert_eq!(
        load_err("[[hook]]\nwebhook = \"ftp://example.com/x\"\n"),
        "deploy.local.toml: key `hook[1].webhook`: `webhook` takes an http:// URL, as in \
         `webhook = \"http://127.0.0.1:8080/hooks\"` (this action speaks plain HTTP only) \
         (line 2, column 11)"
    );
    let err = load("[[hook]]\nwebhook = 3\n").unwrap_err();
    assert!(matches!(err.kind(), TableErrorKind::Shape(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "deploy.local.toml: key `hook[1].webhook`: invalid type: integer `3`, expected an \
         http:// URL, as in `webhook = \"http://127.0.0.1:8080/hooks\"` (line 2, column 11)"
    );
    assert_eq!(
        load_err("[[hook]]\nwebhook = \"http://h:1/\"\ntimeout_ms = 0\n"),
        "deploy.local.toml: key `hook[1].timeout_ms`: `timeout_ms = 0` is not a timeout; write \
         a whole number of milliseconds, at least 1 (line 3, column 14)"
    );
}

/// What the engine gives an action for free: the unknown key's near miss
/// among every action's keys, its `timeout_ms` and `background`, no action
/// or two, and the project-scope refusal.
#[test]
fn the_engine_gives_a_webhook_its_keys_refusals_and_messages() {
    assert_eq!(
        load_err("[[hook]]\nwebhok = \"http://h/\"\n"),
        "deploy.local.toml: key `hook[1].webhok`: unknown key `webhok` (did you mean \
         `webhook`?); a hook table takes `on`, `where`, `append`, `run`, `on_failure`, \
         `timeout_ms`, `background`, `name`, `enabled`, `webhook` (line 2, column 1)"
    );
    let specs =
        load("[[hook]]\nwebhook = \"http://h/\"\ntimeout_ms = 5\nbackground = true\n").unwrap();
    assert_eq!(specs[0].action.timeout(), Some(Duration::from_millis(5)));
    assert!(specs[0].action.background());
    assert_eq!(
        load_err("[[hook]]\nappend = \"a\"\ntimeout_ms = 5\n"),
        "deploy.local.toml: key `hook[1].timeout_ms`: `timeout_ms` applies only to a `run` or \
         `webhook` hook, and this hook appends; remove it (line 3, column 14)"
    );
    assert_eq!(
        load_err("[[hook]]\non = [\"deployed\"]\n"),
        "deploy.local.toml: key `hook[1]`: the table has none of `append`, `run` or `webhook`; \
         a hook needs exactly one of them (line 1, column 1)"
    );
    assert!(
        load_err("[[hook]]\nwebhook = \"http://h/\"\nappend = \"a\"\n")
            .contains("the table has more than one of `append`, `run` or `webhook`"),
    );
    let layout = layout().project_file("deploy.toml");
    let err = TomlFile::project("deploy.toml", "[[hook]]\nwebhook = \"http://h/\"\n")
        .layout(&layout)
        .hooks::<Ev>(Path::new("/p"))
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("deploy.toml: key `hook`: a project-scoped file may not declare hooks"),
        "{err}"
    );
    // Without the layout's action, `webhook` is an unknown key.
    let err = TomlFile::new("deploy.local.toml", "[[hook]]\nwebhook = \"http://h/\"\n")
        .hooks::<Ev>(Path::new("/p"))
        .unwrap_err();
    assert!(
        matches!(err.kind(), TableErrorKind::UnknownKey { .. }),
        "{err}"
    );
}

/// A host that does not resolve fails every request: the action says so
/// when the hooks are built, with its hint, and the hook is kept.
#[test]
fn what_building_a_webhook_finds_wrong_is_a_problem_with_its_hint() {
    let text = "[[hook]]\nwebhook = \"http://no-such-host.invalid/x\"\n";
    let dir = tempfile::tempdir().unwrap();
    let specs = load(text).unwrap();
    let problems = Hooks::check(&specs, dir.path());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].action(), "webhook");
    assert!(
        problems[0].to_string().starts_with(
            "deploy.local.toml: hook[1]: the `webhook` host `no-such-host.invalid` does not \
                 resolve: "
        ),
        "{}",
        problems[0]
    );
    assert_eq!(
        problems[0].hint().as_deref(),
        Some("check the host name in `webhook = \"http://no-such-host.invalid/x\"`")
    );
}

/// The editor's schema carries the embedder's action: its key, exactly one
/// action among three, and the engine's keys it honours left to it (an
/// `append` table is still refused them).
#[test]
fn the_schema_of_a_layout_with_a_webhook_names_its_keys() {
    let schema = io_hooks::hook_file_schema::<Ev>(|_| String::new(), "hooks", &layout());
    let hook = &schema["$defs"]["hook"];
    assert_eq!(hook["properties"]["webhook"]["pattern"], "^http://");
    assert_eq!(hook["properties"]["timeout_ms"]["minimum"], 1);
    assert_eq!(
        hook["oneOf"][2],
        serde_json::json!({ "required": ["webhook"] })
    );
    // One exclusion is written at the top level, any more in `allOf`.
    let rules = || std::iter::once(hook).chain(hook["allOf"].as_array().unwrap());
    let webhook = rules().find(|r| r["if"] == serde_json::json!({ "required": ["webhook"] }));
    assert_eq!(webhook, None, "a webhook takes timeout_ms and background");
    let append = rules()
        .find(|r| r["if"] == serde_json::json!({ "required": ["append"] }))
        .expect("a rule for append's table");
    let not = append["then"]["not"]["anyOf"].to_string();
    assert!(
        not.contains("timeout_ms") && not.contains("background"),
        "{not}"
    );
}

/// A listener that takes the request slowly cannot hold the hook past its
/// timeout: each write waits at most what is left of the deadline (a socket
/// write timeout alone bounds one write, and a 16 MB event took 15.7 s to
/// fail a 2,000 ms hook).
#[test]
fn a_listener_that_reads_slowly_fails_the_hook_at_its_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a port on 127.0.0.1");
    let port = listener.local_addr().expect("its address").port();
    let done = Arc::new(AtomicBool::new(false));
    let stop = Arc::clone(&done);
    // Takes 16 KiB at a time, a pause between (the adversary's pace), until
    // the client has closed or the test is done.
    let reader = std::thread::spawn(move || -> usize {
        let Ok((mut stream, _)) = listener.accept() else {
            return 0;
        };
        let mut taken = 0;
        let mut chunk = vec![0; 16 * 1024];
        while !stop.load(Ordering::Relaxed) {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => taken += n,
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        taken
    });
    let text = format!("[[hook]]\nwebhook = \"http://127.0.0.1:{port}/x\"\ntimeout_ms = 500\n");
    let dir = tempfile::tempdir().unwrap();
    let hooks = Hooks::new(load(&text).unwrap(), dir.path());
    let big = Ev::Deployed {
        target: "x".repeat(16 << 20),
    };
    let mut failures = Vec::new();
    let started = Instant::now();
    let flow = hooks.fire_with(&big, &big, |run| {
        failures.push(run.result.map_err(ToString::to_string));
    });
    let took = started.elapsed();
    done.store(true, Ordering::Relaxed);
    assert_eq!(flow, Flow::Continue);
    assert_eq!(
        failures,
        [Err("the request was not taken within 500 ms".to_owned())]
    );
    assert!(took >= Duration::from_millis(500), "{took:?}");
    // Bounded by the deadline: the whole event at this pace takes over 20 s.
    assert!(took < Duration::from_secs(5), "{took:?}");
    let taken = reader.join().expect("the reader thread");
    assert!(taken > 0 && taken < 16 << 20, "{taken} bytes taken");
}

/// A key an action takes twice, or one another action has, is the
/// embedder's mistake: found at its first read.
#[test]
#[should_panic(
    expected = "the action `webhook` declares the key `webhook`, which a hook table already takes"
)]
fn an_action_added_twice_is_refused() {
    let _ = layout().action(WebhookKind);
}
