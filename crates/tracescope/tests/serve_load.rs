//! The real `tracescope view` over TCP (issue 13): a foreign Host is refused, and a
//! bounded version of the load test (`examples/bench_load`, whose big run is in
//! BENCHMARKS.md): concurrent clients, hostile requests, clients that hang up
//! mid-response or never read. Loopback only; no timing assertions.

#[path = "../examples/bench_load/driver.rs"]
#[allow(dead_code)]
mod driver;

use std::io::{Read, Write};
use std::path::PathBuf;

/// Nested slices on 8 threads of 2 processes, with flows: `n` top-level slices.
fn trace(n: usize) -> PathBuf {
    let name = format!("tracescope-load-{n}-{}.json", std::process::id());
    let mut s = String::from("[\n");
    for i in 0..n {
        let (pid, tid, ts) = (1 + i % 2, i % 8, i as u64 * 100);
        s += &format!(
            r#"{{"ph":"X","pid":{pid},"tid":{tid},"name":"RunTask","cat":"t","ts":{ts},"dur":90,"args":{{"i":{i}}}}},
{{"ph":"X","pid":{pid},"tid":{tid},"name":"Layout{}","ts":{},"dur":50}},
{{"ph":"X","pid":{pid},"tid":{tid},"name":"Paint","ts":{},"dur":20}},
"#,
            i % 7,
            ts + 10,
            ts + 20
        );
        if i % 10 == 0 {
            s += &format!(
                r#"{{"ph":"s","pid":{pid},"tid":{tid},"name":"f","cat":"t","id":{i},"ts":{}}},
{{"ph":"f","bp":"e","pid":{pid},"tid":{},"name":"f","cat":"t","id":{i},"ts":{}}},
"#,
                ts + 1,
                (tid + 1) % 8,
                ts + 401
            );
        }
    }
    s += r#"{"ph":"M","pid":1,"tid":0,"name":"thread_name","args":{"name":"CrRendererMain"}}]"#;
    let p = std::env::temp_dir().join(name);
    std::fs::write(&p, s).unwrap();
    p
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tracescope"))
}

/// The raw status line of a GET with this Host header.
fn status_line(port: u16, path: &str, host: &str) -> String {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text.lines().next().unwrap_or("").to_string()
}

#[test]
fn the_real_server_refuses_a_foreign_host() {
    let p = trace(100);
    let server = driver::Server::start(&bin(), &p);
    let port = server.port;
    for path in ["/", "/main.js", "/api/summary", "/api/slice/0"] {
        let own = format!("127.0.0.1:{port}");
        assert_eq!(status_line(port, path, &own), "HTTP/1.1 200 OK", "{path}");
        let foreign = format!("attacker.example:{port}");
        assert_eq!(
            status_line(port, path, &foreign),
            "HTTP/1.1 403 Forbidden",
            "{path}"
        );
    }
    drop(server);
    std::fs::remove_file(p).unwrap();
}

#[test]
fn many_clients_at_once_get_every_answer() {
    let p = trace(20_000);
    let server = driver::Server::start(&bin(), &p);
    let plan = driver::Plan::from_server(server.port);
    assert_eq!(plan.slices, 60_000);
    let before = server.memory_mb();
    // 16 clients x 150 requests: tiles, searches, details, 3 hostile requests and a
    // hang-up each; 2 connections that never read.
    let report = driver::run(server.port, &plan, 16, 150, 2);
    let after = server.memory_mb();
    eprintln!("{}before: {before}\nafter: {after}", report.table());
    assert_eq!(report.errors(), Vec::<String>::new());
    let count = |k: &str| report.by_kind.get(k).map_or(0, |s| s.ms.len());
    assert_eq!(count(driver::HUGE), 16 * 3);
    assert_eq!(count(driver::DISCONNECT), 16);
    assert_eq!(
        count(driver::TILE) + count(driver::SEARCH) + count(driver::DETAILS),
        16 * 147
    );
    // The server's own memory stays in proportion to the trace, not to the
    // requests served.
    assert!(after.anon < before.anon * 1.5 + 64.0, "{before} -> {after}");
    // Still answering.
    let a = driver::Conn::open(server.port)
        .unwrap()
        .get("/api/summary")
        .unwrap();
    assert_eq!(a.status, 200);
    drop(server);
    std::fs::remove_file(p).unwrap();
}
