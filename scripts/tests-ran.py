#!/usr/bin/env python3
"""Checks that a CTest run executed every Catch2 test case of the test binary.

    scripts/tests-ran.py TEST_BINARY JUNIT_FILE

JUNIT_FILE is what `ctest --output-junit` wrote. Every name the binary lists
(`--list-test-names-only`) must be a CTest test that ran (passed or failed); the names that did
not run are printed and the exit status is 1. With the discovery of cmake/CatchTests.cmake,
whose tests run with `--warn NoTests`, a test that ran also matched its case.
"""
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    binary, junit = Path(sys.argv[1]), Path(sys.argv[2])
    listed_run = subprocess.run([str(binary), "--list-test-names-only"], capture_output=True, text=True)
    listed = [line for line in listed_run.stdout.split("\n") if line.strip()]
    if not listed:
        print(f"tests-ran: {binary} lists no test cases", file=sys.stderr)
        return 1
    try:
        cases = ET.parse(junit).getroot().iter("testcase")
    except (OSError, ET.ParseError) as error:
        print(f"tests-ran: {junit}: {error}", file=sys.stderr)
        return 1
    executed = {case.get("name") for case in cases if case.get("status") in ("run", "fail")}
    missing = [name for name in listed if name not in executed]
    print(f"tests-ran: {len(listed)} test case(s) listed by {binary.name}, "
          f"{len(listed) - len(missing)} of them executed by CTest")
    if missing:
        print(f"tests-ran: {len(missing)} test case(s) never ran:", file=sys.stderr)
        for name in missing:
            print(f"  {name}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
