# brian2_peer: what the Brian2 sides of the benchmarks (bench/cuba/brian2_cuba.py,
# bench/equations/brian2_equations.py) share: import Brian2, run the case in a scratch build
# folder (kept only with --build-dir), and answer with one JSON line on stdout (the result, or
# {"error": ...} and exit status 2 whatever went wrong) after a one-line summary on stderr.
import json
import shutil
import sys
import tempfile


def serve(args, run, prefix, label):
    """Runs run(args, directory) and prints its result dict as the last stdout line; returns the
    exit status. `label` names the case in the summary ("1 thread", "izhikevich, 1 thread")."""
    try:
        import brian2  # noqa: F401
    except ImportError as e:
        print(json.dumps({"error": "cannot import brian2 (Debian: apt-get install "
                                   "python3-brian): %s" % e}))
        return 2
    directory = args.build_dir or tempfile.mkdtemp(prefix=prefix)
    try:
        result = run(args, directory)
    except Exception as e:  # the reply must stay one JSON line whatever Brian2 raised
        print(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}))
        return 2
    finally:
        if not args.build_dir:
            shutil.rmtree(directory, ignore_errors=True)
    print("Brian2 %s cpp_standalone, %s: codegen %.2f s, compile %.2f s, run %.3f s "
          "(binary %.3f s), %d spikes, mean rate %.3f Hz"
          % (result["brian2"], label, result["codegen_seconds"], result["compile_seconds"],
             result["run_seconds"], result["binary_seconds"], result["spikes"],
             result["mean_rate_hz"]), file=sys.stderr)
    print(json.dumps(result))
    return 0
