/*
** attnlab-example.c: libattnlab from C. A two-token lesson whose inputs
** are arrays in memory: its softmax stage drawn as a PNG, one weight read
** back, and the arithmetic behind it.
**
**   cc attnlab-example.c $(pkg-config --cflags --libs attnlab) -o attnlab-example
**   ./attnlab-example softmax.png
*/
#include <attnlab.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *text = "title: From C\n"
                       "[setup]\n"
                       "tokens: the cat sat\n"
                       "X = load \"arrays.npz\" X\n"
                       "queries: X\nkeys: X\nvalues: X\n"
                       "[softmax]\n";
    double x[3][2] = { { 1.0, 0.0 }, { 0.5, 0.5 }, { 0.0, 1.0 } };
    int64_t shape[2] = { 3, 2 };
    attnlab_array arrays[1] = { { "arrays.npz", "X", "<f8", 2, shape, x, sizeof x } };
    attnlab_error err;
    attnlab *a = attnlab_open(text, strlen(text), "from-c.lesson", arrays, 1, &err);
    if (!a) {
        fprintf(stderr, "%s\n", err.text);
        return 2;
    }
    printf("attnlab %s: \"%s\", %d stage(s), stage 1 is %s\n", attnlab_version(), attnlab_title(a),
           attnlab_stage_count(a), attnlab_stage_id(a, 1));

    unsigned char *png;
    size_t n;
    if (attnlab_render(a, 1, 1, NULL, &png, &n, &err) != 0) {
        fprintf(stderr, "%s\n", err.text);
        attnlab_close(a);
        return 1;
    }
    FILE *f = fopen(argc > 1 ? argv[1] : "softmax.png", "wb");
    if (!f || fwrite(png, 1, n, f) != n || fclose(f) != 0) {
        perror(argc > 1 ? argv[1] : "softmax.png");
        attnlab_free(png);
        attnlab_close(a);
        return 1;
    }
    attnlab_free(png);

    int rows, cols;
    double *w;
    if (attnlab_matrix(a, 1, "weights", &rows, &cols, &w, &err) == 0) {
        printf("weights are %dx%d; row 2 = %.4f %.4f %.4f\n", rows, cols, w[cols], w[cols + 1], w[cols + 2]);
        attnlab_free(w);
    }
    char *why = attnlab_explain(a, 1, "weights", 2, 1, &err);
    if (why) {
        printf("%s\n", why);
        attnlab_free(why);
    }
    attnlab_close(a);
    return 0;
}
