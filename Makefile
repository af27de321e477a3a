# attnlab: plain GNU make. `make run` and `make test` set up a fresh Debian
# machine by themselves (installing the packages they need), then build and run.

VERSION  := 0.1.0
PREFIX   ?= /usr/local
DESTDIR  ?=
# Where make install puts things (GNU's names; DESTDIR stages them for a
# package). The program is built knowing DATADIR and DOCDIR.
BINDIR   ?= $(PREFIX)/bin
LIBDIR   ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR  ?= $(PREFIX)/share
MANDIR   ?= $(DATADIR)/man
DOCDIR   ?= $(DATADIR)/doc/attnlab
COMPLETIONSDIR ?= $(DATADIR)/bash-completion/completions
BUILD    ?= build
CC       ?= cc

# PNG encoder: ISA-L's igzip (libisal-dev) by default; `make PNG_FAST=none`
# builds the portable one only (libpng + zlib), for machines without ISA-L.
PNG_FAST ?= isal
ifeq ($(PNG_FAST),isal)
FAST_PKG := libisal
FAST_DEV := libisal-dev
FAST_DEF := -DEXPORT_ISAL
endif

# Debian packages, in sets. `make` and `make run` install the build and run
# sets only; `make test` (and test-sanitize, test-valgrind, the fuzz targets)
# adds the test set; `make bench` adds the bench set; `make web` and
# `make test-web` install their own (web/rules.mk), and so do `make test` and
# `make install`, which build the browser edition (the Python module's
# interactive view shows it). `make deps` installs all but the web's. What each set holds and weighs: docs/packages.md.
BUILD_PKGS := gcc libc6-dev pkg-config gettext libsdl2-dev libpng-dev libfontconfig-dev libfreetype-dev \
              libharfbuzz-dev libfribidi-dev libraqm-dev libunibreak-dev libzip-dev libcjson-dev libcairo2-dev $(FAST_DEV)
RUN_PKGS   := fonts-dejavu-core fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji
TEST_PKGS  := check python3 python3-numpy python3-torch python3-regex python3-nbclient python3-ipykernel libharfbuzz-bin \
              libxml2-utils libdeflate-dev \
              xvfb xdotool imagemagick openbox procps strace valgrind clang libclang-rt-14-dev \
              poppler-utils desktop-file-utils shared-mime-info man-db libx11-dev x11-utils
BENCH_PKGS := python3 python3-matplotlib python3-seaborn python3-numpy python3-torch libdeflate-dev linux-perf valgrind
DEPS_PKGS  ?= $(BUILD_PKGS) $(RUN_PKGS) $(TEST_PKGS) $(BENCH_PKGS)

# Compiler flags. CFLAGS, CPPFLAGS and LDFLAGS come from the environment or
# the command line, as a distribution's packaging passes them (CFLAGS
# defaults to -O2 -g). Warnings are errors in `make test` and the other test
# targets, which set WERROR=-Werror (and so in CI); a plain `make` shows them
# and goes on. Objects depend on $(BUILD)/flags, so a change of flags
# compiles again; -Werror is not part of it (it changes no object), so a
# plain build, then make test, compiles nothing new. Instead each compile
# keeps what the compiler said in OBJECT.warn, and with WERROR set an
# object whose .warn is not empty is compiled again, now with -Werror, so
# its warnings fail the build as if it had never been compiled without.
WARN     := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wmissing-prototypes
WERROR   ?=
CFLAGS   ?= -O2 -g
CPPFLAGS ?=
LDFLAGS  ?=
# The sanitizer build's flags (make test-sanitize), apart from the user's.
EXTRA_CFLAGS  ?=
EXTRA_LDFLAGS ?=

# pkg-config runs once, when a recipe first needs the flags: after the
# packages (pkg-config among them) are installed on a fresh machine. cairo
# is compiled against, not linked: src/sdl/pdf.c loads it when it makes a
# PDF.
PKG_CFLAGS = $(eval PKG_CFLAGS := $$(shell pkg-config --cflags sdl2 libpng fontconfig freetype2 harfbuzz raqm fribidi libunibreak libzip cairo-pdf cairo-ft $(FAST_PKG)) $(FAST_DEF))$(PKG_CFLAGS)
PKG_LIBS   = $(eval PKG_LIBS := $$(shell pkg-config --libs sdl2 libpng fontconfig freetype2 harfbuzz raqm fribidi libunibreak libzip libcjson $(FAST_PKG)))$(PKG_LIBS)
# The program itself does not link SDL2: it loads it when a window opens
# (src/sdl/sdl_dyn.h), so that an export starts without its fifty libraries.
# The tests and the benchmark link it (they call SDL directly). Nor libraqm:
# the program shapes with HarfBuzz and FriBidi itself (src/sdl/font_shape.c);
# the tests compare its runs with libraqm's (tests/test_shape.c).
APP_LIBS   = $(eval APP_LIBS := $$(shell pkg-config --libs libpng fontconfig freetype2 harfbuzz fribidi libunibreak libzip libcjson $(FAST_PKG)) -ldl)$(APP_LIBS)
CHECK_CFLAGS = $(eval CHECK_CFLAGS := $$(shell pkg-config --cflags check))$(CHECK_CFLAGS)
CHECK_LIBS   = $(eval CHECK_LIBS := $$(shell pkg-config --libs check))$(CHECK_LIBS)

DEFINES     = -DATTNLAB_VERSION='"$(VERSION)"' -DATTNLAB_DATADIR='"$(DATADIR)/attnlab"' \
              -DATTNLAB_LOCALEDIR='"$(DATADIR)/locale"' -DATTNLAB_DOCDIR='"$(DOCDIR)"'
CFLAGS_ALL  = $(WARN) $(WERROR) $(DEFINES) -Isrc -fPIC -pthread $(CPPFLAGS) $(CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS_ALL = -pthread $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) $(EXTRA_LDFLAGS)

CORE_SRC := $(wildcard src/core/*.c src/core/*/*.c)
VIEW_SRC := $(wildcard src/view/*.c)
SDL_SRC  := $(wildcard src/sdl/*.c)
APP_SRC  := $(filter-out src/app/main.c,$(wildcard src/app/*.c))
API_SRC  := $(wildcard src/lib/*.c)
TEST_SRC := $(wildcard tests/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
CORE_OBJ := $(call obj,$(CORE_SRC))
VIEW_OBJ := $(call obj,$(VIEW_SRC))
SDL_OBJ  := $(call obj,$(SDL_SRC))
APP_OBJ  := $(call obj,$(APP_SRC))
TEST_OBJ := $(call obj,$(TEST_SRC))
API_OBJ  := $(call obj,$(API_SRC))
LIB_OBJ  := $(CORE_OBJ) $(VIEW_OBJ) $(SDL_OBJ) $(APP_OBJ) $(API_OBJ)
# libattnlab (src/lib/attnlab.h): the core, the layout, the renderer and
# encoders, and the few app modules a picture needs, with only the
# attnlab_* functions exported (src/lib/attnlab.map). Every object is
# position-independent, so the same objects make the program and the
# library.
SO_OBJ   := $(CORE_OBJ) $(VIEW_OBJ) $(SDL_OBJ) $(call obj,$(addprefix src/app/,picture.c shot.c cli_core.c handout.c glyphs.c lang.c paths.c)) \
            $(API_OBJ)
SONAME   := libattnlab.so.$(firstword $(subst ., ,$(VERSION)))
SO_FILE  := $(BUILD)/lib/libattnlab.so.$(VERSION)

SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# Time limits in the tests catch hangs, never slowness: each is at least ten
# times what its step takes on an idle machine, and TIME_SCALE multiplies it
# by how busy this machine is when the tests start (the load average per
# core, rounded up, at least 1) and by SLOW_BUILD (10 for the sanitizer
# build). The scripts read TIME_SCALE; Check reads CK_TIMEOUT_MULTIPLIER.
# The load is read once, by the first make; each make (the sanitizer run is
# one) multiplies it by its own SLOW_BUILD.
SLOW_BUILD ?= 1
ifndef LOAD_SCALE
LOAD_SCALE := $(shell awk -v n="$$(nproc 2>/dev/null || echo 1)" \
                '{ s = $$1 / n; print (s <= 1 ? 1 : (s == int(s) ? s : int(s) + 1)) }' /proc/loadavg 2>/dev/null || echo 1)
endif
TIME_SCALE := $(shell echo $$(($(LOAD_SCALE) * $(SLOW_BUILD))))
export LOAD_SCALE TIME_SCALE

# Message catalogues: po/LANG.po, compiled to $(BUILD)/locale/LANG/LC_MESSAGES/attnlab.mo
# (where the program looks beside itself) and installed under $(PREFIX)/share/locale.
PO_LANGS := $(sort $(basename $(notdir $(wildcard po/*.po))))
MO_FILES := $(patsubst %,$(BUILD)/locale/%/LC_MESSAGES/attnlab.mo,$(PO_LANGS))
I18N_SRC := $(sort $(wildcard src/core/*.c src/core/*/*.c src/view/*.c src/app/*.c src/core/*.h src/core/*/*.h src/view/*.h src/app/*.h)) web/platform.c
XGETTEXT_FLAGS := --from-code=UTF-8 --language=C --keyword=_ --keyword=N_ --add-comments=TRANSLATORS: \
                  --flag=_:1:pass-c-format --flag=fmt:1:c-format --flag=buf_printf:2:c-format \
                  --flag=app_toast:2:c-format --flag=doc_say:2:c-format --flag=snprintf:3:c-format \
                  --flag=app_usage_error:1:c-format --sort-by-file \
                  --package-name=attnlab --package-version=$(VERSION) --msgid-bugs-address=none
# The desktop's files carry words too: the desktop entry's GenericName,
# Comment and Keywords, the file type's comment. They go through the same
# catalogues (xgettext reads them, msgfmt writes the translations in).
I18N_DATA := assets/attnlab.desktop.in assets/attnlab.xml.in
XGETTEXT_DATA_FLAGS := --from-code=UTF-8 --keyword= --keyword=GenericName --keyword=Comment --keyword=Keywords

.PHONY: all lib print-version deps deps-build deps-run deps-test deps-bench deps-locale package-sets run test test-unit test-run test-build test-parts \
        test-sanitize coverage coverage-run clean install locale pot po-update FORCE

all: $(BUILD)/attnlab $(SO_FILE) locale $(BUILD)/attnlab.desktop $(BUILD)/attnlab.xml

locale: $(MO_FILES)

# The desktop entry and the file type, their words translated from po/.
$(BUILD)/attnlab.desktop: assets/attnlab.desktop.in $(wildcard po/*.po) po/LINGUAS | deps-locale
	@mkdir -p $(dir $@)
	msgfmt --desktop --template=$< -d po -o $@.tmp
	mv $@.tmp $@
$(BUILD)/attnlab.xml: assets/attnlab.xml.in $(wildcard po/*.po) po/LINGUAS | deps-locale
	@mkdir -p $(dir $@)
	msgfmt --xml --template=$< -d po -o $@.tmp
	mv $@.tmp $@

# Without the hash table: i18n.c bisects the sorted messages, and the
# browser edition carries eight catalogues in its one file.
$(BUILD)/locale/%/LC_MESSAGES/attnlab.mo: po/%.po | deps-locale
	@mkdir -p $(dir $@)
	msgfmt --check --no-hash -o $@.tmp $<
	mv $@.tmp $@

# po/attnlab.pot: every string marked _() or N_() in the sources. Run after
# changing a marked string, then `make po-update` merges it into every .po.
pot:
	xgettext $(XGETTEXT_FLAGS) -o po/attnlab.pot $(I18N_SRC)
	xgettext $(XGETTEXT_DATA_FLAGS) -j -o po/attnlab.pot $(I18N_DATA)

po-update: pot
	for f in po/*.po; do msgmerge --quiet --update --backup=none --no-fuzzy-matching $$f po/attnlab.pot; done

# need PACKAGES: check them with one dpkg-query; install the missing ones
# with apt-get (as root) or say exactly what to run (as anyone else). Where
# there is no dpkg (another distribution), nothing is checked: the build
# then needs the same libraries installed by that system's own means.
need = command -v dpkg-query >/dev/null || exit 0; \
	missing=""; \
	have=$$(dpkg-query -W -f='$${Package} $${db:Status-Abbrev}\n' $(1) 2>/dev/null | awk '$$2 ~ /^ii/ {print $$1}'); \
	for p in $(1); do \
	  case " $$(echo $$have) " in *" $$p "*) ;; *) missing="$$missing $$p";; esac; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -q && apt-get -o DPkg::Lock::Timeout=900 install -y -q $$missing || exit 1; \
	  else \
	    echo "deps: missing packages:$$missing"; \
	    echo "deps: run as root:  apt-get update && apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi

deps:
	@$(call need,$(DEPS_PKGS))
deps-build:
	@$(call need,$(BUILD_PKGS))
deps-run:
	@$(call need,$(BUILD_PKGS) $(RUN_PKGS))
deps-test:
	@$(call need,$(BUILD_PKGS) $(RUN_PKGS) $(TEST_PKGS))
deps-bench:
	@$(call need,$(BUILD_PKGS) $(RUN_PKGS) $(BENCH_PKGS))
deps-locale:
	@$(call need,gettext)

# The package sets, one a line (tests/tools/package_sets.py simulates what
# each target installs: docs/packages.md). The web targets add Debian's node
# and npm only where there are none.
package-sets:
	@echo "build: $(BUILD_PKGS)"
	@echo "run: $(RUN_PKGS)"
	@echo "test: $(TEST_PKGS)"
	@echo "bench: $(BENCH_PKGS)"
	@echo "web: $(WEB_PKGS) nodejs"
	@echo "web-test: $(WEB_TEST_PKGS) npm"

# The flags every object and program is built with, rewritten only when
# they change (written beside, compared with cmp, moved over only when they
# differ: an unchanged file keeps its time, so nothing is compiled again).
# PKG_CFLAGS stay out: they change with the packages only.
FLAGS_LINE = $(CC) $(filter-out -Werror,$(CFLAGS_ALL)) | $(LDFLAGS_ALL) | $(PNG_FAST)
$(BUILD)/flags: FORCE
	@mkdir -p $(@D) && printf '%s\n' '$(subst ','\'',$(FLAGS_LINE))' > $@.new && \
	  if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi

# Include paths by room, so that the build keeps the layering: src/core and
# src/view see src/ and their own generated headers only, so an SDL,
# FreeType or HarfBuzz include there does not compile; src/sdl, src/app,
# the tests, the benchmark and the tools get the libraries' (pkg-config).
LIB_CFLAGS = $(PKG_CFLAGS)
$(CORE_OBJ) $(VIEW_OBJ): LIB_CFLAGS =

# What the compiler says goes to the terminal and to $@.warn (see WARNED).
$(BUILD)/obj/%.o: %.c $(BUILD)/flags | deps-build
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LIB_CFLAGS) -MMD -MP -c $< -o $@ $(keep_warnings)

# The compiler's messages into $@.warn as well as on the terminal, and its
# exit status kept.
keep_warnings = 2>$@.warn; s=$$?; cat $@.warn >&2; exit $$s
# With WERROR: every file built with warnings before (its .warn not empty)
# is built again, so that the warnings fail the build.
ifneq ($(WERROR),)
WARNED := $(patsubst %.warn,%,$(shell find $(BUILD) -name '*.warn' -size +0 2>/dev/null))
$(WARNED): FORCE
endif

# Only the tests include Check.
$(TEST_OBJ): CFLAGS_ALL += $(CHECK_CFLAGS)

# Colormaps: assets/cmaps/NAME.txt (256 lines "R G B") become the C arrays
# cmap_tab_NAME in a generated header that only cmap.c includes.
CMAP_TXT := $(sort $(wildcard assets/cmaps/*.txt))
$(BUILD)/gen/cmap_tables.h: $(CMAP_TXT)
	@mkdir -p $(dir $@)
	awk 'FNR == 1 { if (NR > 1) print "};"; n = FILENAME; sub(/.*\//, "", n); sub(/\.txt$$/, "", n); \
	     printf "static const unsigned char cmap_tab_%s[256][3] = {\n", n } \
	     NF == 3 { printf "    { %d, %d, %d },\n", $$1, $$2, $$3 } END { print "};" }' $(CMAP_TXT) > $@.tmp
	mv $@.tmp $@
$(BUILD)/obj/src/view/cmap.o: $(BUILD)/gen/cmap_tables.h
$(BUILD)/obj/src/view/cmap.o: CFLAGS_ALL += -I$(BUILD)/gen

$(BUILD)/attnlab: $(LIB_OBJ) $(call obj,src/app/main.c) | deps-build
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(APP_LIBS) -lm

# The shared library, its soname link and the name a linker looks for.
$(SO_FILE): $(SO_OBJ) src/lib/attnlab.map | deps-build
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=src/lib/attnlab.map -Wl,--no-undefined \
	  -o $@ $(SO_OBJ) $(APP_LIBS) -lm
	ln -sf $(notdir $@) $(BUILD)/lib/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/lib/libattnlab.so
lib: $(SO_FILE)
print-version:
	@echo $(VERSION)

# pkg-config's description of the installed library.
$(BUILD)/attnlab.pc: Makefile
	@mkdir -p $(@D)
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' 'Name: attnlab' \
	  'Description: attention in transformers, computed and drawn (the attnlab core)' 'Version: $(VERSION)' \
	  'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -lattnlab' > $@.tmp
	mv $@.tmp $@

$(BUILD)/check_attnlab: $(LIB_OBJ) $(TEST_OBJ) | deps-test
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(CHECK_LIBS) $(PKG_LIBS) -lm

# Drops files on a window as a file manager does (XDND), for tests/e2e_open.sh.
$(BUILD)/xdnd_drop: tests/tools/xdnd_drop.c $(BUILD)/flags | deps-test
	$(CC) $(WARN) $(WERROR) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $$(pkg-config --cflags --libs x11) $(keep_warnings)

# Draws of the PyTorch generator on request, for tests/check_torch_rng.py.
$(BUILD)/trng_dump: $(CORE_OBJ) $(call obj,tests/tools/trng_dump.c) | deps-build
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lm

# The names of the stage and key tables, for the fuzzing dictionary and
# the checks of the docs (tests/tools/lists.c).
$(BUILD)/lists: $(LIB_OBJ) $(call obj,tests/tools/lists.c) | deps-build
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lm

# Single numbers of a lesson's trace, for tests/check_model_layer.py.
$(BUILD)/trace_cells: $(CORE_OBJ) $(call obj,tests/tools/trace_cells.c) | deps-build
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lm

run: deps-run
	@$(MAKE) --no-print-directory $(BUILD)/attnlab locale
	./$(BUILD)/attnlab lessons/01-tour.lesson

# ---------------------------------------------------------------- tests
#
# `make test` builds everything (warnings are errors), then runs every part
# below, TEST_JOBS at a time (default: one per core) and each to its end
# whatever the others do. Each part prints one line with its time (a failed
# part, its output too); the last line says `N passed, M failed`, and the
# exit status is non-zero if anything failed. Logs: $(BUILD)/test-results/.
# The parts are ordered slowest first, so that the last to start are short.
# The benchmark is built, not run (nothing timed here), so that it keeps
# compiling. Everything runs in the untranslated interface whatever the
# user's locale (the tests of translations choose their language themselves).
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
RESULTS   := $(BUILD)/test-results
TEST_J     = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(TEST_JOBS))
PY        := /usr/bin/python3

TEST_PARTS := e2e export-bytes heavy unit-layout gpt2-small gpt2-model torch-layers bert e2e-text e2e-open e2e-nav unit notebook npy modern props torch-rng views \
              cli faults bad-lessons lessons python scripts po trained-model install model-layer lists compare library stack \
              many-scores checkpoint
# The Check suites in two processes: layout and export (two thirds of the
# time) beside the others.
part.unit-layout   := cd tests && ../$(BUILD)/check_attnlab layout export
part.unit          := cd tests && ../$(BUILD)/check_attnlab -x layout export
part.po            := XGETTEXT_FLAGS="$(XGETTEXT_FLAGS)" XGETTEXT_DATA_FLAGS="$(XGETTEXT_DATA_FLAGS)" \
                      I18N_DATA="$(I18N_DATA)" sh tests/po.sh $(I18N_SRC)
part.torch-rng     := $(PY) tests/check_torch_rng.py $(BUILD)/trng_dump $(BUILD)/attnlab
part.cli           := sh tests/cli.sh
part.lessons       := $(PY) tests/check_lessons.py $(BUILD)/attnlab lessons tests/reference
part.views         := $(PY) tests/check_views.py $(BUILD)/attnlab 16
part.npy           := $(PY) tests/check_npy.py $(BUILD)/attnlab
part.trained-model := $(PY) tests/check_trained_model.py $(BUILD)/attnlab lessons/07-induction-head.lesson \
                      tests/reference/induction_forward.npz
# The Python module (python/attnlab) from the tree, and the example notebook
# run by a Jupyter kernel (nbclient), its outputs checked.
part.python        := PYTHONPATH=python $(PY) tests/check_python.py
part.notebook      := PYTHONPATH=python PYDEVD_DISABLE_FILE_VALIDATION=1 ATTNLAB_HTML=$(BUILD)/web/attnlab.html $(PY) tests/check_notebook.py \
                      python/examples/attnlab-notebook.ipynb
part.modern        := $(PY) tests/check_modern.py $(BUILD)/attnlab lessons 120
part.props         := $(PY) tests/check_props.py $(BUILD)/attnlab 12
part.stack         := $(PY) tests/check_stack.py $(BUILD)/attnlab 24
part.model-layer   := $(PY) tests/check_model_layer.py $(BUILD)/trace_cells
part.compare       := $(PY) tests/check_compare.py $(BUILD)/attnlab 30
# libattnlab through ctypes against the program. A sanitized library loads
# only into a sanitized process, so the sanitizer build leaves this part
# to the api suite (tests/test_api.c), which calls the same functions.
# A GPT-2-small-shaped block (768 wide, 12 heads, MLP 3072) at 16, 128 and
# 1024 tokens against its torch forward pass, through the library: in the
# plain build only (the sanitizer build's library cannot load into Python).
part.gpt2-small    := $(if $(filter build,$(BUILD)),ATTNLAB_LIB=$(BUILD)/lib/$(SONAME) $(PY) tests/check_gpt2_small.py,\
                      echo "gpt2-small: 0 passed, 0 failed (the api suite runs the library here)")
# A setup of more scores than the trace keeps: the scores made again
# against numpy (through the library, in the plain build).
part.many-scores   := $(if $(filter build,$(BUILD)),PYTHONPATH=python ATTNLAB_LIB=$(BUILD)/lib/$(SONAME) $(PY) tests/check_many_scores.py,\
                      echo "many-scores: 0 passed, 0 failed (the library does not load into Python in this build)")
# A whole GPT-2-small-shaped model (twelve blocks, 50,257 words) at 16 and
# 128 tokens against torch in float32 and float64.
part.gpt2-model    := $(if $(filter build,$(BUILD)),ATTNLAB_LIB=$(BUILD)/lib/$(SONAME) $(PY) tests/check_gpt2_model.py,\
                      echo "gpt2-model: 0 passed, 0 failed (the api suite runs the library here)")
part.torch-layers  := $(if $(filter build,$(BUILD)),ATTNLAB_LIB=$(BUILD)/lib/$(SONAME) $(PY) tests/check_torch_layers.py,\
                      echo "torch-layers: 0 passed, 0 failed (the api suite runs the library here)")
# BERT's modules in Hugging Face's layout (tests/hf_bert.py) at BERT-base's
# width: a four-layer BertModel at 16 and 128 tokens, a BertLayer at 512.
part.bert          := $(if $(filter build,$(BUILD)),ATTNLAB_LIB=$(BUILD)/lib/$(SONAME) $(PY) tests/check_bert.py,\
                      echo "bert: 0 passed, 0 failed (the api suite runs the library here)")
# Model folders (config.json, model.safetensors, the tokenizer's files) made
# by the test, opened by a lesson's model: setup: the tokens against the
# published algorithms, the numbers against torch.
part.checkpoint    := $(if $(filter build,$(BUILD)),ATTNLAB_LIB=$(BUILD)/lib/$(SONAME) $(PY) tests/check_checkpoint.py,\
                      echo "checkpoint: 0 passed, 0 failed (the api suite runs the library here)")
part.library       := $(if $(filter build,$(BUILD)),ATTNLAB_LIB=$(BUILD)/lib/$(SONAME) $(PY) tests/check_library.py \
                      $(BUILD)/attnlab lessons,echo "library: 0 passed, 0 failed (the api suite runs the library here)")
# What copies the stage, key and binding tables outside C (docs, README, the
# man page, the Python module) against the tables (tests/tools/lists.c).
part.lists         := $(PY) tests/check_lists.py $(BUILD)/lists
part.bad-lessons   := sh tests/bad_lessons.sh
part.faults        := sh tests/faults.sh
part.scripts       := sh tests/scripts.sh
part.heavy         := sh tests/heavy_lessons.sh
part.export-bytes  := sh tests/export_bytes.sh
part.e2e           := bash tests/e2e.sh
part.e2e-text      := bash tests/e2e_text.sh
part.e2e-open      := bash tests/e2e_open.sh
part.e2e-nav       := bash tests/e2e_nav.sh
part.install       := MAKE='$(MAKE)' sh tests/install.sh

# The summary comes last in the outer recipe, so that a failure adds only
# make's own one line after it.
test: deps-test
	@$(MAKE) --no-print-directory WERROR=-Werror test-run
	@sh tests/run_part.sh --summary $(RESULTS) $(TEST_PARTS)

test-build: $(BUILD)/check_attnlab $(BUILD)/attnlab $(SO_FILE) $(BUILD)/trng_dump $(BUILD)/trace_cells $(BUILD)/lists $(BUILD)/xdnd_drop $(MO_FILES) \
            $(BUILD)/bench $(BUILD)/bench_png $(BUILD)/bench_start_parts $(BUILD)/web/attnlab.html

# Build, then run every part; this stops only when the build fails.
test-run:
	@$(MAKE) --no-print-directory $(TEST_J) test-build
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS) && date +%s%N > $(RESULTS)/.started
	@echo "test: $(words $(TEST_PARTS)) parts, $(TEST_JOBS) at a time, time limits x$(TIME_SCALE)"
	@$(MAKE) --no-print-directory $(TEST_J) -k -Otarget test-parts || true

# make test with the flags as they are (no -Werror unless WERROR says so).
test-unit: test-run
	@sh tests/run_part.sh --summary $(RESULTS) $(TEST_PARTS)

test-parts: $(addprefix test-part-,$(TEST_PARTS))
test-part-%: export LC_ALL = C.UTF-8
test-part-%: export ATTNLAB = $(BUILD)/attnlab
test-part-%: export CK_FORK = yes
test-part-%: export CK_TIMEOUT_MULTIPLIER = $(TIME_SCALE)
test-part-%: export ATTNLAB_LOCALE = ../$(BUILD)/locale
test-part-%: FORCE
	@sh tests/run_part.sh $(RESULTS) $* '$(part.$*)'

# The same parts with AddressSanitizer and UBSan. The byte comparison of
# exports runs 20 processes here, not 300: make test's build checks the
# bytes, this one that every process's export path is clean.
test-sanitize: deps-test
	@$(MAKE) --no-print-directory BUILD=build/san CFLAGS="-O1 -g" SLOW_BUILD=10 WERROR=-Werror EXPORT_RUNS=20 \
	  EXTRA_CFLAGS="$(SAN_FLAGS)" EXTRA_LDFLAGS="$(SAN_FLAGS)" \
	  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 test-run
	@sh tests/run_part.sh --summary build/san/test-results $(TEST_PARTS)

# Line coverage (gcov, which comes with gcc): the program and the Check
# suites built with --coverage in build/cov, at -O0 so that every line and
# call is its own. First the bad lessons alone: the parser's error sites
# (FAIL, lp_fail_at, lp_fail_line, error_set in src/core/lesson/lesson*.c, and
# npy.c's fail) that none of them reaches; then COV_PARTS, and the lines
# run per source folder, and the error sites that no part reaches at all.
# Not part of make test or CI; the figures are in docs/coverage.md.
# Reports: build/cov/coverage/.
COV       := build/cov
COV_PARTS ?= unit unit-layout cli lessons npy views
COV_MAKE   = $(MAKE) --no-print-directory BUILD=$(COV) CFLAGS="-O0 -g" SLOW_BUILD=4 WERROR=-Werror \
             EXTRA_CFLAGS=--coverage EXTRA_LDFLAGS=--coverage
coverage: deps-test
	@$(COV_MAKE) $(TEST_J) $(COV)/attnlab $(COV)/check_attnlab \
	  $(patsubst $(BUILD)/%,$(COV)/%,$(MO_FILES))
	@$(COV_MAKE) coverage-run

coverage-run:
	@find $(BUILD) -name '*.gcda' -delete
	@rm -rf $(RESULTS) $(BUILD)/coverage && mkdir -p $(RESULTS) $(BUILD)/coverage
	@$(MAKE) --no-print-directory test-part-bad-lessons
	@$(PY) tests/tools/coverage.py sites $(BUILD) "tests/bad-lessons/" | tee $(BUILD)/coverage/error-sites.txt
	@$(MAKE) --no-print-directory $(TEST_J) -k -Otarget $(addprefix test-part-,$(COV_PARTS)) || true
	@$(PY) tests/tools/coverage.py folders $(BUILD) | tee $(BUILD)/coverage/folders.txt
	@$(PY) tests/tools/coverage.py sites $(BUILD) "any of these parts" | tee $(BUILD)/coverage/error-sites-all.txt
	@sh tests/run_part.sh --summary $(RESULTS) bad-lessons $(COV_PARTS)

# Where `make install` puts the Python module: the site directory Debian's
# Python reads under PREFIX (/usr/local/lib/python3.11/dist-packages).
PYTHON_SITE ?= $(PREFIX)/lib/$(shell $(PY) -c 'import sys; print("python%d.%d" % sys.version_info[:2])' 2>/dev/null || echo python3)/dist-packages

# make install: the program, the lessons, the catalogues, the desktop entry,
# the file type, the icon, the manual page, bash completion, the docs, the
# Python module and the browser edition it shows in a notebook.
# After a real install (no DESTDIR) the desktop's databases are brought up
# to date when their tools are there, so that a double click on a .lesson
# file opens attnlab.
install: $(BUILD)/attnlab $(SO_FILE) $(BUILD)/attnlab.pc $(MO_FILES) $(BUILD)/attnlab.desktop $(BUILD)/attnlab.xml \
         $(BUILD)/web/attnlab.html
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/attnlab/lessons/models
	install -m 755 $(BUILD)/attnlab $(DESTDIR)$(BINDIR)/attnlab
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 755 $(SO_FILE) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(SO_FILE)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libattnlab.so
	install -m 644 src/lib/attnlab.h $(DESTDIR)$(INCLUDEDIR)/attnlab.h
	install -m 644 $(BUILD)/attnlab.pc $(DESTDIR)$(LIBDIR)/pkgconfig/attnlab.pc
	install -m 644 lessons/*.lesson $(DESTDIR)$(DATADIR)/attnlab/lessons/
	install -m 644 lessons/models/*.npz lessons/models/*.lesson $(DESTDIR)$(DATADIR)/attnlab/lessons/models/
	for l in $(PO_LANGS); do \
	  install -d $(DESTDIR)$(DATADIR)/locale/$$l/LC_MESSAGES && \
	  install -m 644 $(BUILD)/locale/$$l/LC_MESSAGES/attnlab.mo $(DESTDIR)$(DATADIR)/locale/$$l/LC_MESSAGES/attnlab.mo || exit 1; \
	done
	install -d $(DESTDIR)$(PYTHON_SITE)/attnlab
	install -m 644 python/attnlab/*.py $(DESTDIR)$(PYTHON_SITE)/attnlab/
	printf 'PROGRAM = "%s"\nDATADIR = "%s"\nLIBDIR = "%s"\n' "$(BINDIR)/attnlab" "$(DATADIR)/attnlab" "$(LIBDIR)" \
	  > $(DESTDIR)$(PYTHON_SITE)/attnlab/_installed.py
	install -m 644 $(BUILD)/web/attnlab.html $(DESTDIR)$(DATADIR)/attnlab/attnlab.html
	install -d $(DESTDIR)$(DATADIR)/applications $(DESTDIR)$(DATADIR)/icons/hicolor/scalable/apps \
	  $(DESTDIR)$(DATADIR)/mime/packages $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(COMPLETIONSDIR) \
	  $(DESTDIR)$(DOCDIR)/docs/images
	install -m 644 $(BUILD)/attnlab.desktop $(DESTDIR)$(DATADIR)/applications/attnlab.desktop
	install -m 644 assets/attnlab.svg $(DESTDIR)$(DATADIR)/icons/hicolor/scalable/apps/attnlab.svg
	install -m 644 $(BUILD)/attnlab.xml $(DESTDIR)$(DATADIR)/mime/packages/attnlab.xml
	sed 's|/usr/local/share|$(DATADIR)|g' docs/attnlab.1 > $(DESTDIR)$(MANDIR)/man1/attnlab.1
	chmod 644 $(DESTDIR)$(MANDIR)/man1/attnlab.1
	install -m 644 assets/attnlab.bash $(DESTDIR)$(COMPLETIONSDIR)/attnlab
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/
	install -m 644 docs/images/*.png $(DESTDIR)$(DOCDIR)/docs/images/
	install -d $(DESTDIR)$(DOCDIR)/docs/examples
	install -m 644 docs/examples/*.c $(DESTDIR)$(DOCDIR)/docs/examples/
	ln -sf docs/lesson-format.md $(DESTDIR)$(DOCDIR)/lesson-format.md
	if [ -z "$(DESTDIR)" ]; then \
	  ! command -v update-mime-database >/dev/null || update-mime-database $(DATADIR)/mime; \
	  ! command -v update-desktop-database >/dev/null || update-desktop-database -q $(DATADIR)/applications; \
	fi

clean:
	rm -rf build

FORCE:

include bench/rules.mk
include tests/fuzz/rules.mk
include web/rules.mk

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
