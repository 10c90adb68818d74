//! Writing never loses data (issue 13): `convert` and `profile -o` as a user runs
//! them, onto their own input, killed, interrupted, on a full disk.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tracescope"))
}

fn run(args: &[&Path]) -> Output {
    bin().args(args).output().expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test, removed after it.
fn dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("tracescope-safe-{name}-"))
        .tempdir()
        .unwrap()
}

fn names(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A trace of `n` complete events on a few threads, with args (so it has some bulk).
fn trace_text(n: usize) -> String {
    let mut s = String::with_capacity(n * 120);
    s.push_str("{\"traceEvents\":[\n");
    for i in 0..n {
        if i > 0 {
            s.push_str(",\n");
        }
        s.push_str(&format!(
            r#"{{"ph":"X","pid":1,"tid":{},"name":"work{}","cat":"c","ts":{},"dur":3,"args":{{"i":{i}}}}}"#,
            i % 4,
            i % 50,
            i * 5
        ));
    }
    s.push_str("\n]}");
    s
}

const SMALL: &str = r#"[{"ph":"X","pid":1,"tid":1,"name":"a","ts":1,"dur":2}]"#;

#[test]
fn convert_onto_its_input_leaves_it_byte_identical() {
    let tmp = dir("self");
    let d = tmp.path();
    let input = d.join("same.json");
    std::fs::write(&input, SMALL).unwrap();
    std::fs::hard_link(&input, d.join("hard.json")).unwrap();
    std::os::unix::fs::symlink("same.json", d.join("sym.json")).unwrap();
    for target in ["same.json", "hard.json", "sym.json", "./same.json"] {
        let out = run(&[Path::new("convert"), &input, &d.join(target)]);
        assert_eq!(out.status.code(), Some(2), "{target}");
        assert_eq!(
            stderr(&out),
            format!(
                "tracescope: refusing to write {}: it is the input {}; choose another output name (the input is untouched)\n",
                d.join(target).display(),
                input.display()
            )
        );
        assert_eq!(std::fs::read_to_string(&input).unwrap(), SMALL, "{target}");
    }
    // A CTF directory onto itself.
    let ctf = d.join("t.ctf");
    assert!(run(&[Path::new("convert"), &input, &ctf]).status.success());
    let before = std::fs::read(ctf.join("chrome_0")).unwrap();
    let out = run(&[Path::new("convert"), &ctf, &ctf]);
    assert!(stderr(&out).contains("it is the input"), "{}", stderr(&out));
    assert_eq!(std::fs::read(ctf.join("chrome_0")).unwrap(), before);
    // profile -o onto its input.
    let out = run(&[Path::new("profile"), &input, Path::new("-o"), &input]);
    assert!(stderr(&out).contains("it is the input"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&input).unwrap(), SMALL);
    assert_eq!(
        names(d),
        ["hard.json", "same.json", "sym.json", "t.ctf"],
        "no temporary left"
    );
}

/// Starts `convert`, waits until its temporary beside `target` holds at least
/// `bytes` (or, for a directory, exists), and returns the child with the temporary.
fn convert_until_writing(
    input: &Path,
    target: &Path,
    bytes: u64,
) -> (std::process::Child, PathBuf) {
    let child = bin()
        .args([Path::new("convert"), input, target])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let temp = target.with_file_name(format!(
        ".{}.tracescope-tmp-{}",
        target.file_name().unwrap().to_string_lossy(),
        child.id()
    ));
    let t0 = Instant::now();
    loop {
        let size = std::fs::metadata(&temp).map(|m| if m.is_dir() { u64::MAX } else { m.len() });
        if size.is_ok_and(|s| s >= bytes) {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "convert never wrote {bytes} bytes to {}",
            temp.display()
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    (child, temp)
}

fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: sends a signal to our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

#[test]
fn a_convert_killed_mid_way_leaves_nothing_at_the_target() {
    let tmp = dir("kill");
    let d = tmp.path();
    let input = d.join("big.json");
    let text = trace_text(600_000);
    std::fs::write(&input, &text).unwrap();
    // JSON: killed once 2 MB of the output are written.
    let target = d.join("out.json");
    let (mut child, temp) = convert_until_writing(&input, &target, 2 << 20);
    signal(&child, libc::SIGKILL);
    let status = child.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(libc::SIGKILL),
        "killed mid-way, not finished"
    );
    assert!(!target.exists(), "nothing at the target");
    // What stays is the temporary, named as one; the next run removes it.
    assert!(temp.exists());
    assert!(run(&[Path::new("convert"), &input, &target])
        .status
        .success());
    assert_eq!(names(d), ["big.json", "out.json"]);

    // An existing target is untouched by a killed run.
    let before = std::fs::read(&target).unwrap();
    let (mut child, _) = convert_until_writing(&input, &target, 2 << 20);
    signal(&child, libc::SIGKILL);
    child.wait().unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), before);

    // A CTF directory: killed while its temporary directory exists.
    let ctf = d.join("out.ctf");
    let (mut child, _) = convert_until_writing(&input, &ctf, 0);
    signal(&child, libc::SIGKILL);
    child.wait().unwrap();
    assert!(!ctf.exists(), "nothing at the CTF target");
}

#[test]
fn an_interrupted_convert_removes_its_temporary() {
    let tmp = dir("interrupt");
    let d = tmp.path();
    let input = d.join("big.json");
    std::fs::write(&input, trace_text(600_000)).unwrap();
    for (sig, target) in [(libc::SIGINT, "out.json"), (libc::SIGTERM, "out.json.gz")] {
        let target = d.join(target);
        let (mut child, temp) = convert_until_writing(&input, &target, 1 << 20);
        signal(&child, sig);
        let status = child.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(sig),
            "dies of the signal"
        );
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(
            err,
            "tracescope: interrupted; the unfinished output was removed\n"
        );
        assert!(!temp.exists() && !target.exists());
        assert_eq!(names(d), ["big.json"]);
    }
}

#[test]
fn an_output_name_says_what_to_write() {
    let tmp = dir("names");
    let d = tmp.path();
    let input = d.join("in.json");
    std::fs::write(&input, SMALL).unwrap();
    for bad in ["out", "out.txt", "out.jsn"] {
        let out = run(&[Path::new("convert"), &input, &d.join(bad)]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            stderr(&out),
            format!(
                "tracescope: cannot tell what to write from the name {}: name the output OUT.json (JSON), \
                 OUT.json.gz or OUT.gz (gzipped JSON), OUT.etw (ETW records), OUT.ctf or OUT/ \
                 (a CTF trace directory; also an existing CTF directory)\n",
                d.join(bad).display()
            )
        );
    }
    assert_eq!(names(d), ["in.json"], "nothing made");
    // A trailing slash and .ctf make CTF directories; an existing one is replaced.
    let slash = PathBuf::from(format!("{}/", d.join("plain").display()));
    for target in [
        slash.as_path(),
        &d.join("t.ctf"),
        &d.join("t.ctf"),
        &d.join("plain"),
    ] {
        let out = run(&[Path::new("convert"), &input, target]);
        assert!(
            out.status.success(),
            "{}: {}",
            target.display(),
            stderr(&out)
        );
    }
    assert_eq!(
        names(&d.join("plain")),
        [".tracescope-index", "chrome_0", "metadata"]
    );
    assert_eq!(
        names(&d.join("t.ctf")),
        [".tracescope-index", "chrome_0", "metadata"]
    );
    // A directory of something else is never replaced.
    std::fs::create_dir(d.join("mine")).unwrap();
    std::fs::write(d.join("mine/notes.txt"), "keep").unwrap();
    let out = run(&[Path::new("convert"), &input, &d.join("mine/")]);
    assert!(
        stderr(&out).contains("exists and is not a CTF trace directory; refusing to replace it"),
        "{}",
        stderr(&out)
    );
    assert_eq!(names(&d.join("mine")), ["notes.txt"]);
    assert_eq!(names(d), ["in.json", "mine", "plain", "t.ctf"]);
}

/// A 256 KiB tmpfs: a real full disk. Needs root (mount); skipped otherwise.
struct TinyDisk(PathBuf);

impl TinyDisk {
    fn mount(d: &Path) -> Option<TinyDisk> {
        let m = d.join("tiny");
        std::fs::create_dir_all(&m).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=256k", "tracescope-test"])
            .arg(&m)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(TinyDisk(m))
    }
}

impl Drop for TinyDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_is_an_error_naming_the_output() {
    let tmp = dir("full");
    let d = tmp.path();
    let input = d.join("in.json");
    std::fs::write(&input, trace_text(20_000)).unwrap();
    let Some(disk) = TinyDisk::mount(d) else {
        tracescope_testdata::skip(
            "cannot mount a tmpfs: needs root where mount is allowed",
            "convert on a full disk",
            "run the tests as root",
        );
        return;
    };
    for name in ["out.json", "out.etw", "out.ctf"] {
        let target = disk.0.join(name);
        let out = run(&[Path::new("convert"), &input, &target]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!(
                "tracescope: cannot write {}: the disk is full (No space left on device (os error 28)); nothing was written there",
                target.display()
            )),
            "{err}"
        );
        assert_eq!(names(&disk.0), Vec::<String>::new(), "{name}: nothing left");
    }
    // An existing output stays as it was.
    std::fs::write(disk.0.join("out.json"), "previous").unwrap();
    let out = run(&[Path::new("convert"), &input, &disk.0.join("out.json")]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(disk.0.join("out.json")).unwrap(),
        "previous"
    );
    assert_eq!(names(&disk.0), ["out.json"]);
}
