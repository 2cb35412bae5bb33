"""Shared helpers for the dashboard's browser tests and benchmark: start `motionctl dashboard`,
find its URL, and drive headless Chromium through Selenium."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ARTIFACTS = os.environ.get("DASHBOARD_ARTIFACTS", os.path.join(REPOSITORY, ".build", "dashboard-artifacts"))
URL_PATTERN = re.compile(r"at (http://\S+)")


def motionctl_path():
    """The motionctl binary: $MOTIONCTL, else the debug build in .build."""
    candidates = [os.environ.get("MOTIONCTL"), os.path.join(REPOSITORY, ".build", "debug", "motionctl")]
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    raise RuntimeError("motionctl is not built: run `swift build --product motionctl` or set MOTIONCTL")


class ServedPage:
    """What both servers of the page share: `url` (with the token, if any), `base`, and stopping
    `process` (SIGTERM, then SIGKILL after `stop_grace` seconds) as a context manager."""

    stop_grace = 10

    @property
    def base(self):
        return self.url.split("?")[0]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(self.stop_grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class DashboardProcess(ServedPage):
    """`motionctl dashboard` on a free port; `url` is the page (with the token, if any)."""

    def __init__(self, source, extra=(), startup_timeout=60):
        self.output = []
        arguments = [motionctl_path(), "dashboard", "--source", source, "--port", "0", *extra]
        self.process = subprocess.Popen(
            arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.url = None
        found = threading.Event()

        def read():
            for line in self.process.stdout:
                self.output.append(line)
                match = URL_PATTERN.search(line)
                if match and not found.is_set():
                    self.url = match.group(1)
                    found.set()
            found.set()

        self.reader = threading.Thread(target=read, daemon=True)
        self.reader.start()
        found.wait(startup_timeout)
        if self.url is None:
            self.stop()
            raise RuntimeError("the dashboard did not start: " + "".join(self.output))



class DaemonDashboardProcess(ServedPage):
    """`motiond --dashboard-port 0` in its own temporary XDG directories; `url` is the page with
    the token, read from the `dashboard.url` file the daemon writes beside its socket."""

    # The daemon commits its history and closes every client before it exits.
    stop_grace = 15

    def __init__(self, source, startup_timeout=60):
        self.directory = tempfile.mkdtemp(prefix="motiond-browser-")
        runtime = os.path.join(self.directory, "run")
        state = os.path.join(self.directory, "state")
        os.makedirs(runtime, mode=0o700)
        os.makedirs(state, mode=0o700)
        socket = os.path.join(runtime, "opencoremotion", "motiond.sock")
        binary = os.path.join(os.path.dirname(motionctl_path()), "motiond")
        environment = dict(os.environ, XDG_RUNTIME_DIR=runtime, XDG_STATE_HOME=state)
        environment.pop("COREMOTION_SOURCE", None)
        self.log_path = os.path.join(self.directory, "motiond.log")
        self.log_file = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [binary, "--source", source, "--socket", socket, "--state-directory",
             os.path.join(state, "opencoremotion"), "--dashboard-port", "0"],
            stdout=self.log_file, stderr=subprocess.STDOUT, env=environment)
        url_file = os.path.join(os.path.dirname(socket), "dashboard.url")
        deadline = time.monotonic() + startup_timeout
        self.url = None
        while time.monotonic() < deadline and self.process.poll() is None:
            if os.path.exists(url_file):
                with open(url_file) as handle:
                    text = handle.read().strip()
                if text:
                    self.url = text
                    break
            time.sleep(0.1)
        if self.url is None:
            # The log first: stopping removes the folder it is in.
            with open(self.log_path) as handle:
                log_tail = handle.read()[-2000:]
            self.stop()
            raise RuntimeError("motiond's dashboard did not start: " + log_tail)

    def stop(self):
        super().stop()
        self.log_file.close()
        shutil.rmtree(self.directory, ignore_errors=True)


def browser_available():
    """Why the browser tests cannot run, or None when they can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (run .ci/install-browser)"
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        return "chromium and chromium-driver are not installed (run .ci/install-browser)"
    return None


def make_driver(width=1280, height=1700):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", "--hide-scrollbars", "--mute-audio"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def text_of(driver, testid):
    from selenium.webdriver.common.by import By
    return driver.find_element(By.CSS_SELECTOR, f"[data-testid={testid}]").text


def wait_until(predicate, timeout, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()


def log(message):
    print(message, file=sys.stderr, flush=True)
