//! A `webhook` action, added from outside the engine through its public
//! plug-in ([`ActionKind`], [`Execute`]): each matching event's JSON line is
//! POSTed to a URL, under the hook's `timeout_ms`, and an answer that is not
//! 2xx is a failure.
//!
//! ```toml
//! [[hook]]
//! on = ["deployed"]
//! webhook = "http://127.0.0.1:8080/hooks"
//! timeout_ms = 2000
//! on_failure = "cancel"
//! ```
//!
//! The engine brings `on`, `where`, `on_failure`, `timeout_ms` (the
//! deadline every wait of the request is bounded by, [`Fire::deadline`])
//! and `background` (the queue), the project-scope refusal, unknown keys
//! and their near misses, and every message; this file brings the key,
//! what its value must be, what building the hooks finds wrong (a host
//! that does not resolve), the request and its ways of failing. Plain
//! `http://` only, with the standard library's sockets: an embedder that
//! needs TLS brings the HTTP client it already uses, blocking (no async
//! runtime is asked of the engine: `execute` runs on the thread that fires,
//! or on a background hook's worker).

use std::fmt;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::Path;
use std::time::{Duration, Instant};

use io_hooks::{
    ActionKind, ActionTable, DEFAULT_TIMEOUT, Effects, Execute, Fire, HookFailure, HookKey,
    Prepare, TableError,
};

/// The key that chooses the action.
pub(crate) const KEY: &str = WebhookKind::KEY.name();

/// The most of an answer read: its status line is all that counts.
const ANSWER_LIMIT: u64 = 8 * 1024;

/// The most of the request written at once, so that each write waits at
/// most what is left of the deadline.
const WRITE_CHUNK: usize = 64 * 1024;

/// The `webhook` action's kind: given to `Layout::action`. It honours the
/// engine's `timeout_ms` and `background`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct WebhookKind;

impl ActionKind for WebhookKind {
    type Action = Webhook;
    const KEY: HookKey = HookKey::new(
        "webhook",
        "an http:// URL, as in `webhook = \"http://127.0.0.1:8080/hooks\"`",
        |_| {
            serde_json::json!({
                "type": "string",
                "pattern": "^http://",
                "description": "An http:// URL to POST each matching event's JSON line to."
            })
        },
    );
    const VERB: &'static str = "posts to a URL";
    const TIMEOUT: bool = true;
    const BACKGROUND: bool = true;

    fn validate(&self, table: &mut ActionTable<'_>) -> Result<Webhook, TableError> {
        let url: String = table.value()?;
        let target = Target::parse(&url).map_err(|why| table.refuse(KEY, why))?;
        Ok(Webhook { url, target })
    }
}

/// Where a URL sends: its host, port and path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Target {
    host: String,
    port: u16,
    path: String,
}

impl Target {
    /// `http://host[:port][/path]`, or why not.
    fn parse(url: &str) -> Result<Target, String> {
        let Some(rest) = url.strip_prefix("http://") else {
            return Err(format!(
                "`{KEY}` takes an http:// URL, as in `{KEY} = \"http://127.0.0.1:8080/hooks\"` \
                 (this action speaks plain HTTP only)"
            ));
        };
        let (authority, path) = match rest.find('/') {
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, "/"),
        };
        if path.chars().any(|c| c.is_control() || c == ' ') {
            return Err(format!(
                "the `{KEY}` URL's path holds a space or a control character"
            ));
        }
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) => match port.parse::<u16>() {
                Ok(port) if port > 0 => (host, port),
                _ => return Err(format!("`{port}` is not a port; write one from 1 to 65535")),
            },
            None => (authority, 80),
        };
        if host.is_empty()
            || !host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || ".-".contains(c))
        {
            return Err(format!(
                "the `{KEY}` URL names no host name or IPv4 address"
            ));
        }
        Ok(Target {
            host: host.to_owned(),
            port,
            path: path.to_owned(),
        })
    }

    /// The addresses the host resolves to.
    fn resolve(&self) -> std::io::Result<Vec<SocketAddr>> {
        Ok((self.host.as_str(), self.port).to_socket_addrs()?.collect())
    }
}

/// A webhook hook: the URL as written, and where it sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Webhook {
    url: String,
    target: Target,
}

/// How a webhook fails: its own type, through `HookFailure::Action`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum WebhookFailure {
    /// No connection, or the request could not be written or its answer
    /// read.
    Io(String),
    /// No whole answer within the timeout.
    Timeout(Duration),
    /// The listener did not take the whole request within the timeout.
    NotSent(Duration),
    /// An answer that is not 2xx: its status code (the reason phrase is the
    /// server's words, and not printed).
    Status(u16),
    /// An answer that is not HTTP.
    NotHttp,
    /// The host's interrupt came first.
    Interrupted,
}

impl fmt::Display for WebhookFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WebhookFailure::Io(e) => write!(f, "the request failed: {e}"),
            WebhookFailure::Timeout(t) => write!(f, "no answer within {} ms", t.as_millis()),
            WebhookFailure::NotSent(t) => {
                write!(f, "the request was not taken within {} ms", t.as_millis())
            }
            WebhookFailure::Status(code) => write!(f, "the server answered {code}, not 2xx"),
            WebhookFailure::NotHttp => f.write_str("the server's answer is not HTTP"),
            WebhookFailure::Interrupted => f.write_str("interrupted before the request"),
        }
    }
}

impl std::error::Error for WebhookFailure {}

impl Execute for Webhook {
    fn describe(&self, _: &Path) -> String {
        format!("post to {}", self.url)
    }

    fn effects(&self) -> Effects {
        Effects::SENDS_REQUEST
    }

    /// A host that does not resolve fails every request: said at load.
    fn prepare(&self, cx: &mut Prepare<'_>) -> Self {
        if let Err(e) = self.target.resolve() {
            cx.problem(
                format!(
                    "the `{KEY}` host `{}` does not resolve: {e}",
                    self.target.host
                ),
                Some(format!("check the host name in `{KEY} = \"{}\"`", self.url)),
            );
        }
        self.clone()
    }

    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        self.post(&fire)
            .map_err(|cause| HookFailure::action(KEY, cause))
    }
}

impl Webhook {
    /// POSTs the event's line and reads the status line of the answer, all
    /// by the hook's deadline: the connection, each write of the request
    /// and each read of the answer wait at most what is left of it.
    fn post(&self, fire: &Fire<'_>) -> Result<(), WebhookFailure> {
        if fire.supervisor().is_interrupted() {
            return Err(WebhookFailure::Interrupted);
        }
        let timeout = fire.timeout().unwrap_or(DEFAULT_TIMEOUT);
        let deadline = fire.deadline().unwrap_or_else(|| Instant::now() + timeout);
        let left = |failure: fn(Duration) -> WebhookFailure| {
            deadline
                .checked_duration_since(Instant::now())
                .filter(|d| !d.is_zero())
                .ok_or(failure(timeout))
        };
        let io = |failure: fn(Duration) -> WebhookFailure| {
            move |e: std::io::Error| match e.kind() {
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => failure(timeout),
                _ => WebhookFailure::Io(e.to_string()),
            }
        };
        let addrs = self.target.resolve().map_err(io(WebhookFailure::Timeout))?;
        let addr = addrs
            .first()
            .ok_or_else(|| WebhookFailure::Io("the host resolves to no address".into()))?;
        let connect = left(WebhookFailure::Timeout)?;
        let mut stream =
            TcpStream::connect_timeout(addr, connect).map_err(io(WebhookFailure::Timeout))?;
        let line = fire.line();
        let head = format!(
            "POST {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.target.path,
            self.target.host,
            self.target.port,
            line.len()
        );
        // A socket's write timeout bounds one write, not the request: a
        // listener that reads slowly would let each write take up to it. So
        // the request goes in chunks, each under what is left.
        for part in [head.as_bytes(), line] {
            for chunk in part.chunks(WRITE_CHUNK) {
                let mut rest = chunk;
                while !rest.is_empty() {
                    let left = left(WebhookFailure::NotSent)?;
                    stream
                        .set_write_timeout(Some(left))
                        .map_err(io(WebhookFailure::NotSent))?;
                    match stream.write(rest).map_err(io(WebhookFailure::NotSent))? {
                        0 => return Err(WebhookFailure::Io("the listener closed".into())),
                        n => rest = &rest[n..],
                    }
                }
            }
        }
        let mut answer = Vec::new();
        let mut reader = (&mut stream).take(ANSWER_LIMIT);
        // Read until the status line is whole, each read within what is
        // left of the timeout.
        while !answer.contains(&b'\n') {
            stream_timeout(reader.get_ref(), left(WebhookFailure::Timeout)?)
                .map_err(io(WebhookFailure::Timeout))?;
            let mut chunk = [0u8; 512];
            match reader
                .read(&mut chunk)
                .map_err(io(WebhookFailure::Timeout))?
            {
                0 => break,
                n => answer.extend_from_slice(&chunk[..n]),
            }
        }
        match status(&answer) {
            Some(code) if (200..300).contains(&code) => Ok(()),
            Some(code) => Err(WebhookFailure::Status(code)),
            None => Err(WebhookFailure::NotHttp),
        }
    }
}

/// Sets `stream`'s read timeout.
fn stream_timeout(stream: &TcpStream, left: Duration) -> std::io::Result<()> {
    stream.set_read_timeout(Some(left))
}

/// The status code of an answer's status line (`HTTP/1.1 204 No Content`).
fn status(answer: &[u8]) -> Option<u16> {
    let line = answer.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    if !words.next()?.starts_with("HTTP/1.") {
        return None;
    }
    words.next()?.parse().ok()
}
