# bench/rules.mk: `make bench`, attnlab's performance figures (docs/performance.md).
#
# Included by the Makefile (`include bench/rules.mk`, after its own rules);
# until then: make -f Makefile -f bench/rules.mk bench
#
# Packages (BENCH_PKGS, installed by `make bench`): python3-matplotlib and
# python3-seaborn (the baselines bench/baseline.py draws with; Debian's, run
# as /usr/bin/python3), libdeflate-dev (the encoder the PNG figures
# compare ISA-L with; also in TEST_PKGS, since `make test` builds the
# benchmark), linux-perf and valgrind (the instructions of a start:
# `perf stat` where the CPU counts them, callgrind where it does not),
# python3-torch (bench/notebook.py times a GPT-2-shaped block's forward
# pass beside what the Python module takes through libattnlab;
# bench/checkpoint.py opens a GPT-2-small folder it writes, 548 MB, and
# times torch's forward pass of the same shapes).
#
# The benchmark program links the same objects as build/check_attnlab, with
# the same flags, and runs from the top of the tree: it reads lessons/ and
# times $(BUILD)/attnlab and the baselines as child processes. BENCH_ARGS
# passes options (--quick, --detail, --keep, --only PREFIX).

BENCH_ARGS ?=

.PHONY: bench

# The benchmark links SDL2 (PKG_LIBS) like the tests: it draws offscreen
# with the program's objects, and the program itself loads SDL2 only for a
# window.
$(BUILD)/bench: $(LIB_OBJ) $(call obj,bench/bench.c bench/model.c bench/start.c bench/timing.c) | deps-build
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lm

# The parts of a one-stage export in a new process (bench/start_parts.c,
# run by --detail): linked as attnlab is, without SDL2.
$(BUILD)/bench_start_parts: $(LIB_OBJ) $(call obj,bench/start_parts.c) | deps-build
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(APP_LIBS) -lm

# A typed sentence in the window, Enter to its frame (bench/sentence.c,
# run by bench/checkpoint.py): the window's own calls, drawn offscreen.
$(BUILD)/bench_sentence: $(LIB_OBJ) $(call obj,bench/sentence.c bench/timing.c) | deps-build
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(APP_LIBS) -lm

# The PNG encoders side by side (bench/png.c): ISA-L, libpng + zlib and
# libdeflate's levels on the same pictures.
$(BUILD)/bench_png: $(LIB_OBJ) $(call obj,bench/png.c bench/timing.c) | deps-build
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -ldeflate -lm

bench: deps-bench $(BUILD)/bench $(BUILD)/bench_png $(BUILD)/bench_start_parts $(BUILD)/bench_sentence $(BUILD)/attnlab $(SO_FILE)
	./$(BUILD)/bench --attnlab $(BUILD)/attnlab --lessons lessons \
	  --script bench/baseline.py --python /usr/bin/python3 $(BENCH_ARGS)
	./$(BUILD)/bench_png --lessons lessons $(filter --quick,$(BENCH_ARGS))
	ATTNLAB_LIB=$(SO_FILE) PYTHONPATH=python /usr/bin/python3 bench/notebook.py $(filter --quick,$(BENCH_ARGS))
	ATTNLAB_LIB=$(SO_FILE) PYTHONPATH=python /usr/bin/python3 bench/checkpoint.py $(BUILD)/attnlab $(BUILD)/bench_sentence \
	  $(filter --quick,$(BENCH_ARGS))
