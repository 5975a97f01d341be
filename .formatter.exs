[
  inputs: ["{mix,.formatter}.exs", "mix/*.ex", "{lib,test,bench,scripts}/**/*.{ex,exs}"]
]
