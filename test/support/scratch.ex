defmodule Backplane.Test.Scratch do
  @moduledoc false
  # Paths under the system's temporary directory for a test's files. A
  # name no earlier run can hold: a run killed before its cleanup leaves
  # its files in place, and a later VM can draw the same unique integer,
  # so the OS pid and the time go into the name, and anything found there
  # is removed first.

  @doc "A fresh path `PREFIX_<pid>_<time>_<n><suffix>`; nothing exists there."
  def path!(prefix, suffix \\ "") do
    name =
      "#{prefix}_#{System.pid()}_#{System.os_time(:microsecond)}_" <>
        "#{System.unique_integer([:positive])}#{suffix}"

    path = Path.join(System.tmp_dir!(), name)
    File.rm_rf!(path)
    path
  end

  @doc "A fresh, empty directory (see `path!/2`)."
  def dir!(prefix) do
    dir = path!(prefix)
    File.mkdir_p!(dir)
    dir
  end
end
