/*
** xdnd_drop.c: drop files on an X window the way a file manager does, for
** the window tests (tests/e2e_open.sh).
**
**   xdnd_drop WINDOW SECONDS FILE...
**
** It speaks the XDND protocol (version 5) as the source of a drag: takes
** the XdndSelection, sends XdndEnter (offering text/uri-list), XdndPosition
** over the window's middle, waits for XdndStatus, sends XdndDrop, answers
** the window's request for the selection with the files as file:// URIs,
** and waits for XdndFinished. Exit status 0 when the window took the drop,
** 1 when it refused it or said nothing within SECONDS, 2 on bad arguments.
** The window here is SDL's, which turns the drop into SDL_DROPBEGIN, one
** SDL_DROPFILE per file and SDL_DROPCOMPLETE: the events a real drop gives.
*/
#define _DEFAULT_SOURCE
#include <X11/Xatom.h>
#include <X11/Xlib.h>

#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static Display *dpy;
static Atom a_aware, a_enter, a_position, a_status, a_drop, a_finished, a_selection, a_copy, a_uri_list;

/* The atoms of the protocol. */
static void atoms(void)
{
    a_aware = XInternAtom(dpy, "XdndAware", False);
    a_enter = XInternAtom(dpy, "XdndEnter", False);
    a_position = XInternAtom(dpy, "XdndPosition", False);
    a_status = XInternAtom(dpy, "XdndStatus", False);
    a_drop = XInternAtom(dpy, "XdndDrop", False);
    a_finished = XInternAtom(dpy, "XdndFinished", False);
    a_selection = XInternAtom(dpy, "XdndSelection", False);
    a_copy = XInternAtom(dpy, "XdndActionCopy", False);
    a_uri_list = XInternAtom(dpy, "text/uri-list", False);
}

/* A client message of the protocol to the target. */
static void send(Window target, Atom type, long l0, long l1, long l2, long l3, long l4)
{
    XEvent e;
    memset(&e, 0, sizeof e);
    e.xclient.type = ClientMessage;
    e.xclient.display = dpy;
    e.xclient.window = target;
    e.xclient.message_type = type;
    e.xclient.format = 32;
    e.xclient.data.l[0] = l0;
    e.xclient.data.l[1] = l1;
    e.xclient.data.l[2] = l2;
    e.xclient.data.l[3] = l3;
    e.xclient.data.l[4] = l4;
    XSendEvent(dpy, target, False, NoEventMask, &e);
    XFlush(dpy);
}

/* file:///path with the bytes a URI may not hold written as %XX. */
static void put_uri(char *out, size_t n, const char *path)
{
    size_t k = (size_t)snprintf(out, n, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p && k + 4 < n; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("/-_.~", *p))
            out[k++] = (char)*p;
        else
            k += (size_t)snprintf(out + k, n - k, "%%%02X", *p);
    }
    out[k] = '\0';
}

/* The next event for the source within the time left (deadline, seconds
** of CLOCK_MONOTONIC); false when time is up. */
static bool next_event(XEvent *e, double deadline)
{
    for (;;) {
        if (XPending(dpy)) {
            XNextEvent(dpy, e);
            return true;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double left = deadline - (now.tv_sec + now.tv_nsec / 1e9);
        if (left <= 0) return false;
        struct pollfd p = { ConnectionNumber(dpy), POLLIN, 0 };
        poll(&p, 1, (int)(left * 1000) + 1);
    }
}

/* Answer a request for the selection with the list of URIs. */
static void answer(const XSelectionRequestEvent *r, const char *list)
{
    XEvent reply;
    memset(&reply, 0, sizeof reply);
    reply.xselection.type = SelectionNotify;
    reply.xselection.display = dpy;
    reply.xselection.requestor = r->requestor;
    reply.xselection.selection = r->selection;
    reply.xselection.target = r->target;
    reply.xselection.time = r->time;
    reply.xselection.property = None;
    if (r->target == a_uri_list && r->property != None) {
        XChangeProperty(dpy, r->requestor, r->property, a_uri_list, 8, PropModeReplace, (const unsigned char *)list,
                        (int)strlen(list));
        reply.xselection.property = r->property;
    }
    XSendEvent(dpy, r->requestor, False, NoEventMask, &reply);
    XFlush(dpy);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: xdnd_drop WINDOW SECONDS FILE...\n");
        return 2;
    }
    Window target = (Window)strtoul(argv[1], NULL, 0);
    double seconds = atof(argv[2]);
    dpy = XOpenDisplay(NULL);
    if (!dpy || !target || seconds <= 0) {
        fprintf(stderr, "xdnd_drop: no display, window or time\n");
        return 2;
    }
    atoms();
    static char list[65536];
    size_t len = 0;
    for (int i = 3; i < argc; i++) {
        char uri[8192];
        put_uri(uri, sizeof uri, argv[i]);
        len += (size_t)snprintf(list + len, sizeof list - len, "%s\r\n", uri);
    }
    Window src = XCreateSimpleWindow(dpy, DefaultRootWindow(dpy), 0, 0, 1, 1, 0, 0, 0);
    XSetSelectionOwner(dpy, a_selection, src, CurrentTime);
    int x = 0, y = 0;
    XWindowAttributes wa;
    Window child;
    if (XGetWindowAttributes(dpy, target, &wa))
        XTranslateCoordinates(dpy, target, DefaultRootWindow(dpy), wa.width / 2, wa.height / 2, &x, &y, &child);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double deadline = now.tv_sec + now.tv_nsec / 1e9 + seconds;

    send(target, a_enter, (long)src, 5L << 24, (long)a_uri_list, 0, 0);
    send(target, a_position, (long)src, 0, ((long)x << 16) | y, CurrentTime, (long)a_copy);
    XEvent e;
    bool accepted = false, dropped = false;
    while (next_event(&e, deadline)) {
        if (e.type == SelectionRequest) {
            answer(&e.xselectionrequest, list);
        } else if (e.type == ClientMessage && e.xclient.message_type == a_status && !dropped) {
            accepted = (e.xclient.data.l[1] & 1) != 0;
            if (!accepted) break;
            send(target, a_drop, (long)src, 0, CurrentTime, 0, 0);
            dropped = true;
        } else if (e.type == ClientMessage && e.xclient.message_type == a_finished) {
            XCloseDisplay(dpy);
            return 0;
        }
    }
    fprintf(stderr, "xdnd_drop: %s\n", !accepted ? "the window did not accept the drop" : "the window did not finish the drop");
    XCloseDisplay(dpy);
    return 1;
}
