# attnlab: plain GNU make. `make run` and `make test` set up a fresh Debian
# machine by themselves (make deps), then build and run.

VERSION  := 0.1.0
PREFIX   ?= /usr/local
DESTDIR  ?=
BUILD    ?= build
CC       ?= cc

# Debian packages the build, the tests and the tools need.
DEPS_PKGS := pkg-config libsdl2-dev check libpng-dev \
             libfontconfig-dev fonts-dejavu-core python3 python3-numpy \
             libfreetype-dev libharfbuzz-dev libfribidi-dev libraqm-dev libunibreak-dev libharfbuzz-bin \
             fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji \
             libxml2-utils xvfb xdotool imagemagick openbox procps python3-matplotlib \
             clang libclang-rt-14-dev valgrind strace python3-torch libisal-dev python3-seaborn libzip-dev \
             gettext

WARN     := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wmissing-prototypes -Werror
OPT      ?= -O2 -g
EXTRA_CFLAGS ?=
EXTRA_LDFLAGS ?=

# PNG encoder: ISA-L's igzip (libisal-dev) by default; `make PNG_FAST=none`
# builds the portable one only (libpng + zlib), for machines without ISA-L.
PNG_FAST ?= isal
ifeq ($(PNG_FAST),isal)
FAST_PKG := libisal
FAST_DEF := -DEXPORT_ISAL
endif

# pkg-config runs once, when a recipe first needs the flags: after `deps` has
# installed pkg-config itself on a fresh machine.
PKG_CFLAGS = $(eval PKG_CFLAGS := $$(shell pkg-config --cflags sdl2 libpng fontconfig freetype2 harfbuzz raqm fribidi libunibreak libzip $(FAST_PKG)) $(FAST_DEF))$(PKG_CFLAGS)
PKG_LIBS   = $(eval PKG_LIBS := $$(shell pkg-config --libs sdl2 libpng fontconfig freetype2 harfbuzz raqm fribidi libunibreak libzip $(FAST_PKG)))$(PKG_LIBS)
CHECK_CFLAGS = $(eval CHECK_CFLAGS := $$(shell pkg-config --cflags check))$(CHECK_CFLAGS)
CHECK_LIBS   = $(eval CHECK_LIBS := $$(shell pkg-config --libs check))$(CHECK_LIBS)

CFLAGS_ALL = $(WARN) $(OPT) -DATTNLAB_VERSION='"$(VERSION)"' -DATTNLAB_DATADIR='"$(PREFIX)/share/attnlab"' \
             -DATTNLAB_LOCALEDIR='"$(PREFIX)/share/locale"' -Isrc $(EXTRA_CFLAGS)

CORE_SRC := $(wildcard src/core/*.c)
VIEW_SRC := $(wildcard src/view/*.c)
SDL_SRC  := $(wildcard src/sdl/*.c)
APP_SRC  := $(filter-out src/app/main.c,$(wildcard src/app/*.c))
TEST_SRC := $(wildcard tests/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
CORE_OBJ := $(call obj,$(CORE_SRC))
VIEW_OBJ := $(call obj,$(VIEW_SRC))
SDL_OBJ  := $(call obj,$(SDL_SRC))
APP_OBJ  := $(call obj,$(APP_SRC))
TEST_OBJ := $(call obj,$(TEST_SRC))
LIB_OBJ  := $(CORE_OBJ) $(VIEW_OBJ) $(SDL_OBJ) $(APP_OBJ)

# How long a refusal (a pipe, a device as input) may take before the fault
# tests call it a hang; sanitizer builds start more slowly.
FAULTS_TIMEOUT ?= 2
# Time budgets of tests/heavy_lessons.sh, in seconds: reading a lesson, and
# each --dump or --export of one (sanitizer builds are several times slower).
HEAVY_CHECK_TIMEOUT ?= 3
HEAVY_TIMEOUT ?= 20

SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# Message catalogues: po/LANG.po, compiled to $(BUILD)/locale/LANG/LC_MESSAGES/attnlab.mo
# (where the program looks beside itself) and installed under $(PREFIX)/share/locale.
PO_LANGS := $(sort $(basename $(notdir $(wildcard po/*.po))))
MO_FILES := $(patsubst %,$(BUILD)/locale/%/LC_MESSAGES/attnlab.mo,$(PO_LANGS))
I18N_SRC := $(sort $(wildcard src/core/*.c src/view/*.c src/app/*.c src/core/*.h src/view/*.h src/app/*.h)) web/platform.c
XGETTEXT_FLAGS := --from-code=UTF-8 --language=C --keyword=_ --keyword=N_ --add-comments=TRANSLATORS: \
                  --flag=_:1:pass-c-format --flag=fmt:1:c-format --flag=buf_printf:2:c-format \
                  --flag=app_toast:2:c-format --flag=snprintf:3:c-format --sort-by-file \
                  --package-name=attnlab --package-version=$(VERSION) --msgid-bugs-address=none

.PHONY: all deps run test test-unit test-sanitize clean install locale pot po-update

all: $(BUILD)/attnlab locale

locale: $(MO_FILES)

$(BUILD)/locale/%/LC_MESSAGES/attnlab.mo: po/%.po | deps
	@mkdir -p $(dir $@)
	msgfmt --check -o $@.tmp $<
	mv $@.tmp $@

# po/attnlab.pot: every string marked _() or N_() in the sources. Run after
# changing a marked string, then `make po-update` merges it into every .po.
pot:
	xgettext $(XGETTEXT_FLAGS) -o po/attnlab.pot $(I18N_SRC)

po-update: pot
	for f in po/*.po; do msgmerge --quiet --update --backup=none --no-fuzzy-matching $$f po/attnlab.pot; done

# Check every package with one dpkg-query; install the missing ones (as root)
# or say exactly what to run (as anyone else).
deps:
	@missing=""; \
	have=$$(dpkg-query -W -f='$${Package} $${db:Status-Abbrev}\n' $(DEPS_PKGS) 2>/dev/null | awk '$$2 ~ /^ii/ {print $$1}'); \
	for p in $(DEPS_PKGS); do \
	  case " $$(echo $$have) " in *" $$p "*) ;; *) missing="$$missing $$p";; esac; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -q && apt-get install -y -q $$missing || exit 1; \
	  else \
	    echo "deps: missing packages:$$missing"; \
	    echo "deps: run as root:  apt-get update && apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi

$(BUILD)/obj/%.o: %.c Makefile | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PKG_CFLAGS) $(CHECK_CFLAGS) -MMD -MP -c $< -o $@

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

$(BUILD)/attnlab: $(LIB_OBJ) $(call obj,src/app/main.c) | deps
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lm $(EXTRA_LDFLAGS)

$(BUILD)/check_attnlab: $(LIB_OBJ) $(TEST_OBJ) | deps
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(CHECK_LIBS) $(PKG_LIBS) -lm $(EXTRA_LDFLAGS)

# Draws of the PyTorch generator on request, for tests/check_torch_rng.py.
$(BUILD)/trng_dump: $(CORE_OBJ) $(call obj,tests/tools/trng_dump.c) | deps
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lm $(EXTRA_LDFLAGS)

run: $(BUILD)/attnlab locale
	./$(BUILD)/attnlab lessons/01-tour.lesson

# The unit suites (Check) and the command-line tests, against one build,
# in the untranslated interface whatever the user's locale (the tests of
# translations choose their language themselves). The benchmark is built,
# not run (nothing timed here), so that it keeps compiling.
test-unit: export LC_ALL = C.UTF-8
test-unit: $(BUILD)/check_attnlab $(BUILD)/attnlab $(BUILD)/trng_dump $(MO_FILES) $(BUILD)/bench
	cd tests && CK_FORK=yes ATTNLAB_LOCALE=../$(BUILD)/locale ../$(BUILD)/check_attnlab
	XGETTEXT_FLAGS="$(XGETTEXT_FLAGS)" sh tests/po.sh $(I18N_SRC)
	/usr/bin/python3 tests/check_torch_rng.py $(BUILD)/trng_dump $(BUILD)/attnlab
	ATTNLAB=$(BUILD)/attnlab sh tests/cli.sh
	/usr/bin/python3 tests/check_lessons.py $(BUILD)/attnlab lessons tests/reference
	/usr/bin/python3 tests/check_views.py $(BUILD)/attnlab 16
	/usr/bin/python3 tests/check_npy.py $(BUILD)/attnlab
	/usr/bin/python3 tests/check_trained_model.py $(BUILD)/attnlab lessons/07-induction-head.lesson tests/reference/induction_forward.npz
	/usr/bin/python3 tests/check_modern.py $(BUILD)/attnlab lessons 120
	/usr/bin/python3 tests/check_props.py $(BUILD)/attnlab 12
	ATTNLAB=$(BUILD)/attnlab sh tests/bad_lessons.sh
	ATTNLAB=$(BUILD)/attnlab FAULTS_TIMEOUT=$(FAULTS_TIMEOUT) sh tests/faults.sh
	ATTNLAB=$(BUILD)/attnlab sh tests/scripts.sh
	ATTNLAB=$(BUILD)/attnlab HEAVY_CHECK_TIMEOUT=$(HEAVY_CHECK_TIMEOUT) HEAVY_TIMEOUT=$(HEAVY_TIMEOUT) sh tests/heavy_lessons.sh
	ATTNLAB=$(BUILD)/attnlab sh tests/e2e.sh
	ATTNLAB=$(BUILD)/attnlab sh tests/e2e_text.sh

test: deps
	@$(MAKE) --no-print-directory test-unit

test-sanitize: deps
	@$(MAKE) --no-print-directory BUILD=build/san OPT="-O1 -g" FAULTS_TIMEOUT=10 \
	  HEAVY_CHECK_TIMEOUT=30 HEAVY_TIMEOUT=300 \
	  EXTRA_CFLAGS="$(SAN_FLAGS)" EXTRA_LDFLAGS="$(SAN_FLAGS)" \
	  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp test-unit

install: $(BUILD)/attnlab $(MO_FILES)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/attnlab/lessons
	install -m 755 $(BUILD)/attnlab $(DESTDIR)$(PREFIX)/bin/attnlab
	install -m 644 lessons/*.lesson $(DESTDIR)$(PREFIX)/share/attnlab/lessons/
	install -d $(DESTDIR)$(PREFIX)/share/attnlab/lessons/models
	install -m 644 lessons/models/*.npz $(DESTDIR)$(PREFIX)/share/attnlab/lessons/models/
	for l in $(PO_LANGS); do \
	  install -d $(DESTDIR)$(PREFIX)/share/locale/$$l/LC_MESSAGES && \
	  install -m 644 $(BUILD)/locale/$$l/LC_MESSAGES/attnlab.mo $(DESTDIR)$(PREFIX)/share/locale/$$l/LC_MESSAGES/attnlab.mo || exit 1; \
	done
	install -d $(DESTDIR)$(PREFIX)/share/applications $(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps
	install -m 644 assets/attnlab.desktop $(DESTDIR)$(PREFIX)/share/applications/attnlab.desktop
	install -m 644 assets/attnlab.svg $(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps/attnlab.svg

clean:
	rm -rf build

include bench/rules.mk
include tests/fuzz/rules.mk
include web/rules.mk

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
