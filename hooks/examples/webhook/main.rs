//! An embedder's own action, `webhook`, added through the engine's public
//! plug-in (`action.rs`), read from a hook table beside `append` and `run`
//! and fired at a listener this example starts on 127.0.0.1.
//!
//! ```text
//! cargo run -p io-hooks --example webhook
//! ```

mod action;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

use io_hooks::{Flow, HookEvents, Hooks, Layout, TomlFile};

#[derive(HookEvents, serde::Serialize)]
#[serde(tag = "event")]
enum Ev {
    /// A release went out.
    #[serde(rename = "deployed")]
    Deployed { version: String },
    /// A release was rolled back.
    #[serde(rename = "rolled_back")]
    RolledBack,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The receiving end: one request, answered 204, its body printed.
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let server = std::thread::spawn(move || -> std::io::Result<String> {
        let (stream, _) = listener.accept()?;
        let mut reader = BufReader::new(stream);
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line)?;
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        reader
            .get_mut()
            .write_all(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")?;
        Ok(String::from_utf8_lossy(&body).into_owned())
    });

    let text = format!(
        "[[hook]]\non = [\"deployed\"]\nwebhook = \"http://127.0.0.1:{port}/hooks\"\n\
         timeout_ms = 2000\non_failure = \"cancel\"\n"
    );
    let layout = Layout::new().action(action::WebhookKind);
    let dir = tempfile::tempdir()?;
    let specs = TomlFile::new("deploy.toml", &text)
        .layout(&layout)
        .hooks::<Ev>(dir.path())?;
    println!("hook[1]: {}", specs[0].action.describe(dir.path()));
    let hooks = Hooks::new(specs, dir.path());

    assert_eq!(hooks.fire_event(&Ev::RolledBack), Flow::Continue); // not wanted
    let flow = hooks.fire_event(&Ev::Deployed {
        version: "1.4.2".into(),
    });
    let body = server.join().map_err(|_| "the listener panicked")??;
    print!("the listener received: {body}");
    println!("flow: {flow:?}");
    Ok(())
}
