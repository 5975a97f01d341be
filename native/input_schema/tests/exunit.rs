//! The NIF's tests are ExUnit's: its symbols resolve only inside the BEAM.
//! This test lets cargo drive them, so that `scripts/mutants --nif` can
//! count the NIF crate's mutants (and the core's arms that only BEAM terms
//! reach) with the ExUnit suite as the judge.
//!
//! It does nothing unless `INPUT_SCHEMA_EXUNIT` is set. Set, it builds the
//! NIF from the same source with this test's profile and target directory,
//! then runs `mix test` in the project root against that library
//! (`BACKPLANE_INPUT_SCHEMA_NIF`), on the test files the variable names
//! (space-separated; every file when it is `all`).

use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn the_exunit_suite_passes_against_this_build() {
    let Ok(files) = std::env::var("INPUT_SCHEMA_EXUNIT") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let (target, profile_dir) = target_of_this_test();
    let profile = if profile_dir == "debug" {
        "dev"
    } else {
        profile_dir.as_str()
    };

    // Cargo builds a cdylib only when asked: build it with this test's
    // profile and target directory, from the same (possibly mutated) source.
    let built = Command::new(env!("CARGO"))
        .args(["build", "-p", "input_schema", "--features", "test-probes"])
        .args(["--profile", profile])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(&root)
        .status();
    assert!(
        matches!(built, Ok(status) if status.success()),
        "cargo build of the NIF failed: {built:?}"
    );
    let library = target.join(&profile_dir).join("libinput_schema.so");

    // The first failure decides: a mutant is caught.
    let mut mix = Command::new("mix");
    mix.args(["test", "--max-failures", "1"]).current_dir(&root);
    if files.trim() != "all" {
        mix.args(files.split_whitespace());
    }
    // Unoptimised frames are several times the size of the shipped build's
    // (see the core's stack tests): schedulers get 4 MiB stacks here, where
    // the defaults (1 MiB normal, 320 KiB dirty) fit only the optimised NIF.
    let status = mix
        .env("MIX_ENV", "test")
        .env("BACKPLANE_INPUT_SCHEMA_NIF", &library)
        .env("ERL_FLAGS", "+sss 512 +sssdcpu 512")
        .status();
    assert!(
        matches!(status, Ok(status) if status.success()),
        "mix test failed: {status:?}"
    );
}

/// This test binary sits in `<target>/<profile>/deps/`: the target
/// directory and the profile's directory name.
fn target_of_this_test() -> (PathBuf, String) {
    let exe = std::env::current_exe().unwrap_or_default();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap_or(Path::new(""));
    let name = profile_dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let target = profile_dir.parent().unwrap_or(Path::new("")).to_path_buf();
    (target, name)
}
