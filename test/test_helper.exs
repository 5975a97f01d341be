ExUnit.start(exclude: [:host])
