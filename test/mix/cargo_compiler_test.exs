defmodule Mix.Tasks.Compile.InputSchemaNativeTest do
  # The native build's checks that a host meets before cargo runs. The build
  # itself, the target directory under _build, the prebuilt library and
  # `mix clean` are exercised end to end by test/adoption/host_test.exs.
  use ExUnit.Case, async: false

  alias Mix.Tasks.Compile.InputSchemaNative

  @remedy "Install Rust 1.91 or newer with rustup (https://rustup.rs) and make sure " <>
            "`cargo` is on the PATH, or set BACKPLANE_INPUT_SCHEMA_NIF to a prebuilt " <>
            "libinput_schema.so (see docs/adoption.md)."

  setup do
    Mix.shell(Mix.Shell.Process)
    on_exit(fn -> Mix.shell(Mix.Shell.IO) end)
    dir = Backplane.Test.Scratch.dir!("input_schema_cargo")
    on_exit(fn -> File.rm_rf!(dir) end)
    {:ok, dir: dir}
  end

  defp fake_cargo(dir, version_line) do
    path = Path.join(dir, "cargo")
    File.write!(path, "#!/bin/sh\necho '#{version_line}'\n")
    File.chmod!(path, 0o755)
    path
  end

  test "a missing cargo fails the compile with what to install", %{dir: dir} do
    missing = Path.join(dir, "no-cargo-here")

    message =
      "the InputSchema NIF is built with cargo, which was not found (#{missing}). " <> @remedy

    assert {:error, [diagnostic]} = InputSchemaNative.check_cargo(missing, "1.91")
    assert diagnostic.message === message
    assert diagnostic.severity === :error
    assert_received {:mix_shell, :error, [^message]}
  end

  test "a cargo older than the crate's rust-version fails the compile", %{dir: dir} do
    cargo = fake_cargo(dir, "cargo 1.70.0 (ec8a8a0ca 2023-04-25)")
    message = "the InputSchema NIF needs cargo 1.91 or newer, found 1.70.0. " <> @remedy

    assert {:error, [diagnostic]} = InputSchemaNative.check_cargo(cargo, "1.91")
    assert diagnostic.message === message
    assert_received {:mix_shell, :error, [^message]}
  end

  test "a cargo whose version cannot be read counts as missing", %{dir: dir} do
    cargo = fake_cargo(dir, "not cargo")
    assert {:error, [diagnostic]} = InputSchemaNative.check_cargo(cargo, "1.91")
    assert diagnostic.message =~ "which was not found (#{cargo})"
  end

  test "cargo at or above the minimum is used", %{dir: dir} do
    exact = fake_cargo(dir, "cargo 1.91.0 (abc 2025-10-01)")
    assert InputSchemaNative.check_cargo(exact, "1.91") === {:ok, exact}
    newer = fake_cargo(dir, "cargo 2.0.3")
    assert InputSchemaNative.check_cargo(newer, "1.91") === {:ok, newer}
    refute_received {:mix_shell, :error, _}
  end

  test "cargo's target directory is under the build path unless CARGO_TARGET_DIR is set" do
    previous = System.get_env("CARGO_TARGET_DIR")

    try do
      System.delete_env("CARGO_TARGET_DIR")

      assert InputSchemaNative.target_dir() ===
               Path.join([Mix.Project.app_path(), "native", "target"])

      System.put_env("CARGO_TARGET_DIR", "/tmp/elsewhere")
      assert InputSchemaNative.target_dir() === "/tmp/elsewhere"
    after
      if previous,
        do: System.put_env("CARGO_TARGET_DIR", previous),
        else: System.delete_env("CARGO_TARGET_DIR")
    end
  end
end
