"""`sheetgen preview`: a local web page that shows what a spec prints while it is written.

- `server`: the HTTP server (the standard library's ThreadingHTTPServer) and the one thread
  that watches the files and hands the work to worker processes;
- `worker`: a worker process, which loads a spec, draws its pages and analyses it, as
  `render` and `analyze` do, and sends back plain data;
- `page`: the HTML of the page, drawn from that data.

Nothing here is imported by the other commands: `sheetgen preview` imports it when it runs.
"""
