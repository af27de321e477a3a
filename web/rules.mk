# web/rules.mk: the browser edition (docs/web.md), included by the Makefile.
#
#   make web            build/web/attnlab.html: one offline page, wasm inside
#   make web-core       build/web/attnlab-cli.js (+ attnlab-node, a wrapper):
#                       --check and --dump compiled to WebAssembly, for node
#   make test-web-core  the wasm --dump of every bundled lesson against the
#                       native one, the lesson figures and the bad-input corpus
#   make test-web       test-web-core, then the page in headless Chromium
#   make web-tools      what building needs: emscripten (apt), node if missing
#   make web-deps       web-tools, chromium (apt), npm if missing, then the
#                       pinned puppeteer-core (npm ci in web/)
#
# Sources are picked by wildcard: all of src/core and src/view, and every
# file of src/app that includes neither SDL nor the SDL-backed exports
# (main.c, window.c, shot.c stay out), plus web/platform.c. The page's
# scripts are web/paint.js (the canvas), web/page.js (the page around it)
# and web/attnlab.js (start, input, files, the address). Debian's emcc
# works offline with its prebuilt (frozen) system libraries; it needs
# NODE_PATH for this node, and its output runs under node only with
# --no-experimental-fetch.

EMCC      ?= emcc
WEB       := $(BUILD)/web
CJSON     := $(BUILD)/cjson
WEB_ENV   := NODE_PATH=/usr/share/nodejs
WEB_NODE  := node --no-experimental-fetch
WEB_CFLAGS = $(WARN) $(WERROR) -Os -DATTNLAB_VERSION='"$(VERSION)"' -DATTNLAB_NO_ZIP -DATTNLAB_NO_UNIBREAK -Isrc -I$(BUILD)/gen -I$(CJSON)
WEB_APP_SRC := $(filter-out src/app/main.c src/app/window.c,\
               $(shell grep -LE '^\#include *[<"](SDL|sdl/|app/shot\.h|shot\.h|window\.h)' src/app/*.c))
# src/view/text.c breaks lines without libunibreak here (ATTNLAB_NO_UNIBREAK).
WEB_SRC   := $(CORE_SRC) $(VIEW_SRC) $(WEB_APP_SRC) web/platform.c $(WEB)/cJSON.o
WEB_CLI_SRC := $(CORE_SRC) src/app/cli_core.c web/cli.c $(WEB)/cJSON.o
WEB_HDRS  := $(wildcard src/*/*.h src/*/*/*.h web/*.h) $(CJSON)/cJSON.c
WEB_EXPORTS := _malloc,_free
WEB_RUNTIME := FS,ENV,UTF8ToString,stringToUTF8,lengthBytesUTF8

.PHONY: web web-core web-tools web-deps test-web test-web-core

web: $(WEB)/attnlab.html
web-core: $(WEB)/attnlab-node

# cJSON: the native build links Debian's library (libcjson-dev); the
# WebAssembly build compiles the same version's source, which
# web/cjson-source.sh fetches with apt-get source (Debian's patches
# applied) into build/cjson. Compiled on its own, with its own warnings.
$(CJSON)/cJSON.c: web/cjson-source.sh | web-tools
	sh web/cjson-source.sh $(CJSON)
$(WEB)/cJSON.o: $(CJSON)/cJSON.c
	@mkdir -p $(dir $@)
	$(WEB_ENV) $(EMCC) -std=c89 -Os -I$(CJSON)/cjson -c $< -o $@

# Packages: the web set, apt-get as root (the Makefile's `need`): emscripten
# and gettext (the catalogues) to build, dpkg-dev to unpack cJSON's source; chromium and the pinned
# puppeteer-core (npm ci in web/) to test; Debian's node and npm only when
# there are none (a node from elsewhere conflicts with Debian's nodejs).
# test-web also builds and runs the native program (the build and run sets).
WEB_PKGS      := emscripten gettext dpkg-dev
WEB_TEST_PKGS := chromium

web-tools:
	@$(call need,$(WEB_PKGS))
	@command -v node >/dev/null || { $(call need,nodejs); }

web-deps: web-tools
	@$(call need,$(WEB_TEST_PKGS))
	@command -v npm >/dev/null || { $(call need,npm); }
	@$(MAKE) --no-print-directory web/node_modules/.package-lock.json

web/node_modules/.package-lock.json: web/package.json web/package-lock.json
	cd web && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund
	@touch $@

$(WEB)/attnlab-cli.js: $(WEB_CLI_SRC) $(WEB_HDRS) web/rules.mk | web-tools
	@mkdir -p $(dir $@)
	$(WEB_ENV) $(EMCC) $(WEB_CFLAGS) $(WEB_CLI_SRC) -sNODERAWFS=1 -sEXIT_RUNTIME=1 \
	  -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=node -o $@

$(WEB)/attnlab-node: $(WEB)/attnlab-cli.js
	printf '#!/bin/sh\n# attnlab --check/--dump, the WebAssembly build, under node\nexec node --no-experimental-fetch "$$(dirname "$$0")/attnlab-cli.js" "$$@"\n' > $@
	chmod +x $@

# The module without its wasm inside (bundle.mjs puts it in the page
# deflated, which SINGLE_FILE's base64 would not be).
$(WEB)/attnlab-module.js: $(WEB_SRC) $(WEB_HDRS) $(BUILD)/gen/cmap_tables.h web/rules.mk | web-tools
	@mkdir -p $(dir $@)
	$(WEB_ENV) $(EMCC) $(WEB_CFLAGS) -DATTNLAB_DATADIR='"/attnlab"' -DATTNLAB_LOCALEDIR='"/attnlab/locale"' $(WEB_SRC) \
	  -sMODULARIZE=1 -sEXPORT_NAME=createAttnlab -sENVIRONMENT=web \
	  -sALLOW_MEMORY_GROWTH=1 -sFORCE_FILESYSTEM=1 \
	  -sEXPORTED_FUNCTIONS=$(WEB_EXPORTS) -sEXPORTED_RUNTIME_METHODS=$(WEB_RUNTIME) -o $@
$(WEB)/attnlab-module.wasm: $(WEB)/attnlab-module.js

# Every bundled lesson goes in, with the NumPy files it loads, and the
# interface's catalogues: the page speaks the lesson's language, else the
# browser's.
WEB_SCRIPTS := web/paint.js web/page.js web/attnlab.js
$(WEB)/attnlab.html: $(WEB)/attnlab-module.js $(WEB)/attnlab-module.wasm web/attnlab.html $(WEB_SCRIPTS) web/bundle.mjs \
                     $(wildcard lessons/*.lesson lessons/models/*.npz) $(MO_FILES) | web-tools
	node web/bundle.mjs --module $(WEB)/attnlab-module.js --wasm $(WEB)/attnlab-module.wasm --page web/attnlab.html \
	  $(foreach s,$(WEB_SCRIPTS),--script $(s)) --version $(VERSION) --out $@ \
	  $(foreach l,$(PO_LANGS),--catalogue $(l)=$(BUILD)/locale/$(l)/LC_MESSAGES/attnlab.mo) $(wildcard lessons/*.lesson)

test-web-core: $(WEB)/attnlab-node $(BUILD)/attnlab
	sh web/test/core.sh $(BUILD)/attnlab $(WEB)/attnlab-node

test-web: web-deps
	@$(MAKE) --no-print-directory WERROR=-Werror test-web-core $(WEB)/attnlab.html $(BUILD)/attnlab
	cd web && BUILD=$(BUILD) node --test --test-concurrency=1 --test-reporter=spec test/browser.test.mjs test/page.test.mjs test/notebook.test.mjs
