#!/usr/bin/env bash
# Installs the Debian packages the compatibility tests drive, for each tool that is missing:
# kcat, a JDK with Maven for the Java clients, iptables for the chaos tests' network cuts, FUSE
# 3 (fusermount3 and libfuse3) for the disk-fault tests' file system with a failing fsync, and
# podman with runc and mmdebstrap for the container image, its compose files and testcontainers
# (make image builds its base image from Debian packages with mmdebstrap when no image registry
# is reachable), Prometheus for the metrics tests' real scraper, and Chromium with its WebDriver
# for the console's browser tests. Idempotent; needs root (or sudo).
set -euo pipefail
declare -A package_for=(
    [kcat]=kcat
    [javac]=default-jdk-headless
    [mvn]=maven
    [iptables]=iptables
    [fusermount3]=fuse3
    [podman]=podman
    [runc]=runc
    [mmdebstrap]=mmdebstrap
    [prometheus]=prometheus
    [chromium]=chromium
    [chromedriver]=chromium-driver
)
# packages with no command of their own on PATH: the CNI plugin that gives podman's networks a
# DNS server, by which the containers of a compose project find each other by service name
# (docker/containers.conf has podman use CNI)
packages=(golang-github-containernetworking-plugin-dnsname)
missing=()
for tool in "${!package_for[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("${package_for[$tool]}")
done
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "installing Debian packages: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
