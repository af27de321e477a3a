# tests/fuzz/rules.mk: fuzzing (clang + libFuzzer) and valgrind, included
# from the Makefile after its own rules (it uses WARN, BUILD, CORE_SRC,
# VIEW_SRC and the cmap_tables.h rule).
#
# Debian packages these rules need, in the Makefile's TEST_PKGS (installed by
# the deps-test step every target here waits for):
#   clang libclang-rt-14-dev valgrind
# (clang-14 is Debian 12's clang; libclang-rt-14-dev holds libFuzzer and the
# sanitizer runtimes.)
#
#   make fuzz                  build build/fuzz/fuzz_lesson, seed build/fuzz/corpus
#                              and fuzz for $(FUZZ_SECONDS) seconds; fails on a crash
#   make fuzz-npy              build build/fuzz/fuzz_npy (the .npy/.npz reader), seed
#                              build/fuzz/npy-corpus and fuzz for $(FUZZ_SECONDS) seconds
#   make fuzz-safetensors      build build/fuzz/fuzz_safetensors (the checkpoint reader), seed
#                              build/fuzz/safetensors-corpus and fuzz for $(FUZZ_SECONDS) seconds
#   make fuzz-tokenizer        the same for build/fuzz/fuzz_tokenizer (GPT-2's BPE, BERT's
#                              WordPiece, their files), from tests/fuzz/tokenizer-seeds
#   make fuzz-regressions      replay tests/fuzz/regressions/* (no fuzzing)
#   make fuzz-memory           the heavy lessons through the harness under the 2 GB limit
#   make test-valgrind         memcheck over --export (PNG and SVG) and --check
#   make test-bad-lessons      tests/bad_lessons.sh against $(BUILD)/attnlab

FUZZ_CC      ?= clang
FUZZ_DIR     ?= build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_SAN     := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS  := $(WARN) $(WERROR) -g -O1 -Isrc -I$(BUILD)/gen $(FUZZ_SAN)
FUZZ_SRC     := tests/fuzz/fuzz_lesson.c $(CORE_SRC) $(VIEW_SRC)
# -timeout: only a guard against hangs. A lesson at the edge of the work
# budget (about a second in a normal build) takes 10-40 s under ASan and
# UBSan at -O1, and a busy machine can double that.
FUZZ_ARGS    := -max_len=65536 -timeout=300 -rss_limit_mb=2048 -dict=$(FUZZ_DIR)/lesson.dict

.PHONY: fuzz fuzz-build fuzz-corpus fuzz-npy fuzz-safetensors fuzz-tokenizer fuzz-shape fuzz-memory fuzz-regressions test-valgrind test-bad-lessons

# The harness links the SDL-free modules only: src/core and src/view.
$(FUZZ_DIR)/fuzz_lesson: $(FUZZ_SRC) $(wildcard src/core/*.h src/core/*/*.h src/view/*.h) $(BUILD)/gen/cmap_tables.h tests/fuzz/rules.mk | deps-test
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(FUZZ_SRC) -lzip -lunibreak -lcjson -lm

fuzz-build: $(FUZZ_DIR)/fuzz_lesson

# Seeds: the bundled lessons, the bad-input corpus and a few extra lessons
# for features the bundled ones do not use. Found inputs stay in the corpus
# between runs.
fuzz-corpus:
	sh tests/fuzz/make_corpus.sh $(FUZZ_DIR)/corpus

# One process (the machine it runs on may be shared); libFuzzer exits
# non-zero on the first crash, timeout or out-of-memory input and leaves it
# in $(FUZZ_DIR)/artifacts/. Minimise it with
#   $(FUZZ_DIR)/fuzz_lesson -minimize_crash=1 -max_total_time=60 -exact_artifact_path=tests/fuzz/regressions/NAME ARTIFACT
# before fixing the bug, so fuzz-regressions replays it from then on.
# The dictionary: the format's literals (tests/fuzz/lesson.dict) and every
# stage and setting key from their C tables (build/lists), so that a stage
# or key added to a table is fuzzed without anyone adding it here.
$(FUZZ_DIR)/lesson.dict: tests/fuzz/lesson.dict $(BUILD)/lists
	@mkdir -p $(FUZZ_DIR)
	{ cat tests/fuzz/lesson.dict && $(BUILD)/lists dict; } > $@.tmp
	mv $@.tmp $@

fuzz: $(FUZZ_DIR)/fuzz_lesson $(FUZZ_DIR)/lesson.dict fuzz-corpus
	@mkdir -p $(FUZZ_DIR)/artifacts
	$(FUZZ_DIR)/fuzz_lesson $(FUZZ_ARGS) -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_DIR)/artifacts/ $(FUZZ_DIR)/corpus

# The NumPy reader on its own: header parser, decoder, .npy files and .npz
# members (libzip). Seeds are written by numpy (make_npy_corpus.py).
FUZZ_NPY_SRC := tests/fuzz/fuzz_npy.c src/core/io/npy.c src/core/error.c src/core/io/fileio.c src/core/text/utf8.c src/core/util.c
$(FUZZ_DIR)/fuzz_npy: $(FUZZ_NPY_SRC) src/core/io/npy.h src/core/io/fileio.h src/core/util.h tests/fuzz/rules.mk | deps-test
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(FUZZ_NPY_SRC) -lzip -lm

fuzz-npy: $(FUZZ_DIR)/fuzz_npy
	$(FUZZ_DIR)/fuzz_npy -runs=1 -timeout=10 tests/fuzz/npy-regressions/*
	/usr/bin/python3 tests/fuzz/make_npy_corpus.py $(FUZZ_DIR)/npy-corpus
	@mkdir -p $(FUZZ_DIR)/npy-artifacts
	$(FUZZ_DIR)/fuzz_npy -max_len=4096 -timeout=10 -rss_limit_mb=2048 -dict=tests/fuzz/npy.dict \
	  -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_DIR)/npy-artifacts/ $(FUZZ_DIR)/npy-corpus

# The checkpoint reader on its own: the header's JSON (cJSON), its shapes,
# offsets and dtypes, the numbers. Seeds are written by
# make_safetensors_corpus.py.
FUZZ_ST_SRC := tests/fuzz/fuzz_safetensors.c src/core/io/safetensors.c src/core/error.c src/core/io/fileio.c \
               src/core/text/utf8.c src/core/util.c
$(FUZZ_DIR)/fuzz_safetensors: $(FUZZ_ST_SRC) src/core/io/safetensors.h src/core/io/fileio.h src/core/util.h \
                              tests/fuzz/rules.mk | deps-test
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(FUZZ_ST_SRC) -lcjson -lm

fuzz-safetensors: $(FUZZ_DIR)/fuzz_safetensors
	/usr/bin/python3 tests/fuzz/make_safetensors_corpus.py $(FUZZ_DIR)/safetensors-corpus
	@mkdir -p $(FUZZ_DIR)/safetensors-artifacts
	$(FUZZ_DIR)/fuzz_safetensors -max_len=4096 -timeout=10 -rss_limit_mb=2048 -max_total_time=$(FUZZ_SECONDS) \
	  -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/safetensors-artifacts/ $(FUZZ_DIR)/safetensors-corpus

# The model tokenizers on their own: texts cut by a small GPT-2 and BERT
# tokenizer, and merges.txt and vocab.txt files read. Seeds:
# tests/fuzz/tokenizer-seeds (the first byte says which, fuzz_tokenizer.c).
FUZZ_TOK_SRC := tests/fuzz/fuzz_tokenizer.c src/core/text/tokenizer.c src/core/text/unidata.c \
                src/core/text/unitables.c src/core/text/utf8.c src/core/error.c src/core/io/fileio.c src/core/util.c
$(FUZZ_DIR)/fuzz_tokenizer: $(FUZZ_TOK_SRC) src/core/text/tokenizer.h src/core/text/unidata.h tests/fuzz/rules.mk | deps-test
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(FUZZ_TOK_SRC) -lcjson -lm

fuzz-tokenizer: $(FUZZ_DIR)/fuzz_tokenizer
	@mkdir -p $(FUZZ_DIR)/tokenizer-corpus $(FUZZ_DIR)/tokenizer-artifacts
	cp tests/fuzz/tokenizer-seeds/* $(FUZZ_DIR)/tokenizer-corpus/
	$(FUZZ_DIR)/fuzz_tokenizer -max_len=4096 -timeout=10 -rss_limit_mb=2048 -max_total_time=$(FUZZ_SECONDS) \
	  -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/tokenizer-artifacts/ $(FUZZ_DIR)/tokenizer-corpus

# The heaviest lessons within the documented limits (tests/heavy-lessons/),
# each through the whole harness once: libFuzzer stops with "out-of-memory"
# if one takes the process past 2 GB (the default -rss_limit_mb) or asks for
# that much in one allocation.
fuzz-memory: $(FUZZ_DIR)/fuzz_lesson
	$(FUZZ_DIR)/fuzz_lesson -runs=1 -timeout=120 -rss_limit_mb=2048 -malloc_limit_mb=2048 tests/heavy-lessons/*.lesson

# Inputs that once crashed, minimised: each must now run clean. Every other
# harness is built and run once over a few seeds too, so none of them stops
# building unnoticed. The lesson harness's limit is the fuzz run's own
# (FUZZ_ARGS), a guard against hangs far above what an input costs: a
# bundled lesson's every page, the pages the pager asks the layout about
# and the small window's layout (640x400, text at 1.5) take up to 35 s of
# CPU under the instrumentation (lesson 02), more on a busy machine.
fuzz-regressions: $(FUZZ_DIR)/fuzz_lesson $(FUZZ_DIR)/fuzz_npy $(FUZZ_DIR)/fuzz_safetensors $(FUZZ_DIR)/fuzz_mo \
                  $(FUZZ_DIR)/fuzz_tokenizer \
                  $(FUZZ_DIR)/fuzz_shape $(MO_FILES)
	$(FUZZ_DIR)/fuzz_lesson -runs=1 -timeout=300 -rss_limit_mb=2048 tests/fuzz/regressions/*
	$(FUZZ_DIR)/fuzz_npy -runs=1 -timeout=10 tests/fuzz/npy-regressions/*
	$(FUZZ_DIR)/fuzz_safetensors -runs=1 -timeout=10 tests/fuzz/safetensors-regressions/*
	$(FUZZ_DIR)/fuzz_tokenizer -runs=1 -timeout=10 tests/fuzz/tokenizer-seeds/*
	$(FUZZ_DIR)/fuzz_mo -runs=1 -timeout=10 $(MO_FILES)
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp $(FUZZ_DIR)/fuzz_shape -runs=1 -timeout=30 tests/scripts/*.lesson

# valgrind over the real program (build it with the normal flags first):
# every lesson exported as PNG and as SVG, and every bad lesson checked.
VALGRIND := valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite,indirect \
            --error-exitcode=3 --suppressions=tests/valgrind.supp --quiet
test-valgrind: deps-test
	@$(MAKE) --no-print-directory WERROR=-Werror $(BUILD)/attnlab
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(VALGRIND) $(BUILD)/attnlab --export $$tmp/png --format png lessons/*.lesson >/dev/null && \
	$(VALGRIND) $(BUILD)/attnlab --export $$tmp/svg --format svg lessons/*.lesson >/dev/null && \
	{ $(VALGRIND) $(BUILD)/attnlab --check tests/bad-lessons/*.lesson >/dev/null 2>$$tmp/err; \
	  rc=$$?; if [ $$rc -ne 2 ]; then cat $$tmp/err; echo "test-valgrind: --check exited $$rc, expected 2"; exit 1; fi; \
	  if grep -v '^tests/bad-lessons/.*: error: ' $$tmp/err; then echo "test-valgrind: valgrind reported the lines above"; exit 1; fi; } && \
	echo "test-valgrind: no errors, no leaks"

test-bad-lessons: $(BUILD)/attnlab
	ATTNLAB=$(BUILD)/attnlab sh tests/bad_lessons.sh

# The .mo catalogue reader alone (src/core/text/i18n.c and fileio.c, util.c),
# seeded with the shipped catalogues: `make fuzz-mo FUZZ_SECONDS=60`.
FUZZ_MO_SRC := tests/fuzz/fuzz_mo.c src/core/text/i18n.c src/core/error.c src/core/io/fileio.c src/core/text/utf8.c src/core/util.c

.PHONY: fuzz-mo
$(FUZZ_DIR)/fuzz_mo: $(FUZZ_MO_SRC) src/core/text/i18n.h tests/fuzz/rules.mk | deps-test
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(FUZZ_MO_SRC)

fuzz-mo: $(FUZZ_DIR)/fuzz_mo $(MO_FILES)
	@mkdir -p $(FUZZ_DIR)/mo-corpus $(FUZZ_DIR)/artifacts
	for f in $(MO_FILES); do cp $$f $(FUZZ_DIR)/mo-corpus/$$(echo $$f | tr / _); done
	$(FUZZ_DIR)/fuzz_mo -max_len=65536 -timeout=10 -rss_limit_mb=2048 -max_total_time=$(FUZZ_SECONDS) \
	  -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/artifacts/ $(FUZZ_DIR)/mo-corpus

# Text shaping and drawing on their own: any bytes measured and drawn with
# the program's fonts (fontconfig fallback, HarfBuzz and FriBidi, the glyph atlas) on an
# offscreen canvas. Seeds: the strings of the lessons in many scripts.
FUZZ_SHAPE_SRC := tests/fuzz/fuzz_shape.c src/sdl/font.c src/sdl/font_shape.c src/sdl/font_atlas.c src/sdl/render.c \
                  src/sdl/canvas.c src/sdl/sdl_dyn.c \
                  src/view/draw.c src/core/error.c src/core/io/fileio.c src/core/util.c src/core/text/utf8.c
$(FUZZ_DIR)/fuzz_shape: $(FUZZ_SHAPE_SRC) $(wildcard src/sdl/*.h src/core/*.h src/core/*/*.h src/view/*.h) tests/fuzz/rules.mk | deps-test
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(PKG_CFLAGS) -o $@ $(FUZZ_SHAPE_SRC) $(PKG_LIBS) -lm

fuzz-shape: $(FUZZ_DIR)/fuzz_shape
	@mkdir -p $(FUZZ_DIR)/shape-corpus $(FUZZ_DIR)/shape-artifacts
	for f in lessons/*.lesson tests/scripts/*.lesson; do \
	  grep -v '^#' "$$f" | grep -v '^ *$$' | head -c 4000 > "$(FUZZ_DIR)/shape-corpus/$$(basename $$f)"; done
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp $(FUZZ_DIR)/fuzz_shape -max_len=512 -timeout=30 -rss_limit_mb=2048 -max_total_time=$(FUZZ_SECONDS) \
	  -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/shape-artifacts/ $(FUZZ_DIR)/shape-corpus
