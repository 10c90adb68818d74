//! The output module on real files: temporaries, commits, refusals, disk full.

use std::path::Path;

use super::*;

/// A fresh directory for one test, removed after it.
fn dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("tracescope-output-{name}-"))
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

fn write(out: &Output, text: &str) {
    use std::io::Write;
    let mut w = out.writer().unwrap();
    w.write_all(text.as_bytes()).unwrap();
    w.flush().unwrap();
}

#[test]
fn a_file_appears_at_the_target_only_on_commit() {
    let tmp = dir("commit");
    let d = tmp.path();
    let target = d.join("out.json");
    std::fs::write(&target, "old").unwrap();
    let out = Output::file(&target, &[]).unwrap();
    write(&out, "new");
    let temp = format!(".out.json.tracescope-tmp-{}", std::process::id());
    assert_eq!(names(d), [temp.as_str(), "out.json"]);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
    out.commit().unwrap();
    assert_eq!(names(d), ["out.json"]);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
}

#[test]
fn an_output_dropped_without_commit_leaves_the_target_as_it_was() {
    let tmp = dir("drop");
    let d = tmp.path();
    let target = d.join("out.json");
    std::fs::write(&target, "old").unwrap();
    let out = Output::file(&target, &[]).unwrap();
    write(&out, "half");
    drop(out);
    assert_eq!(names(d), ["out.json"]);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
    let fresh = d.join("fresh.json");
    drop(Output::file(&fresh, &[]).unwrap());
    assert_eq!(names(d), ["out.json"]);
}

#[test]
fn the_input_itself_is_refused_by_path_hard_link_and_symbolic_link() {
    let tmp = dir("same");
    let d = tmp.path();
    let input = d.join("in.json");
    std::fs::write(&input, "[]").unwrap();
    std::fs::hard_link(&input, d.join("hard.json")).unwrap();
    std::os::unix::fs::symlink(&input, d.join("sym.json")).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    for target in [
        input.clone(),
        d.join("hard.json"),
        d.join("sym.json"),
        d.join("sub/../in.json"),
    ] {
        let e = Output::file(&target, &[&input]).err().unwrap().to_string();
        assert!(e.starts_with("refusing to write"), "{e}");
        assert!(e.contains("it is the input"), "{e}");
    }
    // Through a symbolic link to the input's directory, too.
    std::os::unix::fs::symlink(d, d.join("sub/up")).unwrap();
    assert!(Output::file(&d.join("sub/up/in.json"), &[&input]).is_err());
    assert_eq!(std::fs::read_to_string(&input).unwrap(), "[]");
    assert_eq!(
        names(d),
        ["hard.json", "in.json", "sub", "sym.json"],
        "no temporary left"
    );
}

#[test]
fn a_symbolic_link_target_is_written_through() {
    let tmp = dir("through");
    let d = tmp.path();
    std::fs::write(d.join("real.json"), "old").unwrap();
    std::os::unix::fs::symlink(d.join("real.json"), d.join("link.json")).unwrap();
    let out = Output::file(&d.join("link.json"), &[]).unwrap();
    write(&out, "new");
    out.commit().unwrap();
    assert!(std::fs::symlink_metadata(d.join("link.json"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(d.join("real.json")).unwrap(), "new");
}

#[test]
fn a_directory_replaces_the_old_one_whole_and_never_holds_its_input() {
    let tmp = dir("dir");
    let d = tmp.path();
    let target = d.join("t.ctf");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("metadata"), "old").unwrap();
    std::fs::write(target.join("stale"), "old").unwrap();
    let replaceable = |p: &Path| p.join("metadata").exists();
    let out = Output::dir(&target, &[], "CTF trace directory", replaceable).unwrap();
    std::fs::write(out.path().join("metadata"), "new").unwrap();
    assert_eq!(
        std::fs::read_to_string(target.join("metadata")).unwrap(),
        "old"
    );
    out.commit().unwrap();
    assert_eq!(names(&target), ["metadata"]);
    assert_eq!(
        std::fs::read_to_string(target.join("metadata")).unwrap(),
        "new"
    );
    assert_eq!(names(d), ["t.ctf"]);

    // The input directory itself, and a directory holding the input.
    let e = Output::dir(&target, &[&target], "CTF trace directory", replaceable)
        .err()
        .unwrap();
    assert!(e.to_string().contains("it is the input"), "{e}");
    let e = Output::dir(d, &[&target.join("metadata")], "x", |_| true)
        .err()
        .unwrap();
    assert!(e.to_string().contains("would remove the input"), "{e}");
    // A file that is a hard link to one of an input directory's files.
    std::fs::hard_link(target.join("metadata"), d.join("m.json")).unwrap();
    let e = Output::file(&d.join("m.json"), &[&target]).err().unwrap();
    assert!(e.to_string().contains("a file of the input"), "{e}");
}

#[test]
fn a_directory_of_something_else_is_never_replaced() {
    let tmp = dir("other");
    let d = tmp.path();
    std::fs::write(d.join("notes.txt"), "mine").unwrap();
    let e = Output::dir(d, &[], "CTF trace directory", |_| false)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.ends_with("exists and is not a CTF trace directory; refusing to replace it (remove it or choose another name)"),
        "{e}"
    );
    assert_eq!(names(d), ["notes.txt"]);
    let e = Output::dir(&d.join("notes.txt"), &[], "CTF trace directory", |_| true)
        .err()
        .unwrap();
    assert!(e.to_string().contains("is not a directory"), "{e}");
    let e = Output::file(d, &[]).err().unwrap();
    assert!(e.to_string().contains("is a directory"), "{e}");
    let e = Output::file(&d.join("no/such/dir/x.json"), &[])
        .err()
        .unwrap();
    assert!(e.to_string().contains("does not exist"), "{e}");
}

#[test]
fn leftovers_of_a_killed_run_are_removed_by_the_next_one() {
    let tmp = dir("stale");
    let d = tmp.path();
    // pid 0 never names a live process in /proc.
    let stale = d.join(".out.json.tracescope-tmp-0");
    std::fs::write(&stale, "partial").unwrap();
    let unrelated = d.join(".other.json.tracescope-tmp-0");
    std::fs::write(&unrelated, "partial").unwrap();
    let out = Output::file(&d.join("out.json"), &[]).unwrap();
    assert!(!stale.exists());
    assert!(unrelated.exists(), "another target's temporary is not ours");
    drop(out);
}

#[test]
fn a_full_disk_names_the_target() {
    let e = std::io::Error::from_raw_os_error(libc::ENOSPC);
    let msg = write_error(Path::new("/data/out.json"), e).to_string();
    assert_eq!(
        msg,
        "cannot write /data/out.json: the disk is full (No space left on device (os error 28)); nothing was written there (free some space and run again)"
    );
}
