# The PushBench image: `make image` builds it, `Scripts/check-image.sh` checks on a machine
# without Docker that the binary the build stage makes needs nothing the runtime stage lacks.
#
# Build stage: the Swift toolchain PushBench is developed with, on the same Debian, with the
# -dev packages it links (Scripts/install-deps.sh lists why each is there). The Swift standard
# library and Foundation are linked statically, so the runtime stage needs no Swift.
FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libcurl4-openssl-dev libssl-dev libnghttp2-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# BEGIN build-command (Scripts/check-image.sh runs this same command)
RUN swift build -c release --product pushbench --static-swift-stdlib
# END build-command
RUN install -D -m 755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/pushbench" /out/pushbench

# Runtime stage: a slim Debian with only the shared libraries the binary loads (libstdc++6 for
# the statically linked Swift runtime; slim has it, but the binary links it by name), and the CA
# certificates it trusts for api.push.apple.com.
FROM debian:bookworm-slim
# BEGIN runtime-packages (Scripts/check-image.sh reads this list)
RUN apt-get update \
    && apt-get install -y --no-install-recommends libcurl4 libssl3 libnghttp2-14 libstdc++6 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
# END runtime-packages
COPY --from=build /out/pushbench /usr/local/bin/pushbench
RUN useradd --system --uid 10001 pushbench
USER pushbench
WORKDIR /results
ENTRYPOINT ["/usr/local/bin/pushbench"]
CMD ["--help"]
