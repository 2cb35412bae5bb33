"""Shared helpers for the dashboard's browser tests and benchmark: start `motionctl dashboard`,
find its URL, and drive headless Chromium through Selenium."""

import os
import re
import shutil
import subprocess
import sys
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


class DashboardProcess:
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

    @property
    def base(self):
        return self.url.split("?")[0]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


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
