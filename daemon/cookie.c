// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE /* gettid */
#include "cookie.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct holder {
	pthread_t thread;
	pid_t tid;
	pid_t adopt_from; /* 0: CREATE */
	sc_cookie cookie;
	int result;
	sem_t ready;
	sem_t release;
};

static struct holder *zero_holder;
static sc_cookie main_cookie;   /* what the main thread carries now */
static unsigned live_holders;

static void *holder_main(void *arg)
{
	struct holder *h = arg;

	h->tid = gettid();
	if (h->adopt_from > 0)
		h->result = sc_share_from(h->adopt_from);
	else if (h->adopt_from == 0)
		h->result = sc_create(0, SC_SCOPE_THREAD);
	/* adopt_from < 0: keep what the thread inherited (the cookie-0 holder) */
	if (h->result == 0)
		h->result = sc_get(0, &h->cookie);
	sem_post(&h->ready);
	if (h->result < 0)
		return NULL;
	/* Parked: a sleeping thread costs no CPU and keeps the cookie alive. */
	while (sem_wait(&h->release) < 0 && errno == EINTR)
		;
	return NULL;
}

static int holder_start(pid_t adopt_from, struct holder **ret)
{
	struct holder *h = calloc(1, sizeof(*h));
	pthread_attr_t attr;
	int r;

	if (!h)
		return -ENOMEM;
	h->adopt_from = adopt_from;
	sem_init(&h->ready, 0, 0);
	sem_init(&h->release, 0, 0);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN + 16384);
	/* The cookie-0 holder is a site of its own: it is made at start-up,
	 * where failing is fatal, and a test of key holders must get past it. */
	r = sc_fault(adopt_from < 0 ? "holder0" : "holder");
	if (r == 0)
		r = -pthread_create(&h->thread, &attr, holder_main, h);
	pthread_attr_destroy(&attr);
	if (r < 0) {
		free(h);
		return r;
	}
	while (sem_wait(&h->ready) < 0 && errno == EINTR)
		;
	if (h->result < 0) {
		r = h->result;
		pthread_join(h->thread, NULL);
		free(h);
		return r;
	}
	live_holders++;
	*ret = h;
	return 0;
}

int holder_new(struct holder **ret)
{
	return holder_start(0, ret);
}

int holder_new_adopt(pid_t tid, struct holder **ret)
{
	return tid > 0 ? holder_start(tid, ret) : -EINVAL;
}

struct holder *holder_free(struct holder *h)
{
	if (!h)
		return NULL;
	sem_post(&h->release);
	pthread_join(h->thread, NULL);
	sem_destroy(&h->ready);
	sem_destroy(&h->release);
	if (h->cookie == main_cookie && h != zero_holder)
		main_cookie = (sc_cookie)-1; /* unknown until the next pull */
	live_holders--;
	free(h);
	return NULL;
}

sc_cookie holder_cookie(const struct holder *h)
{
	return h ? h->cookie : 0;
}

pid_t holder_tid(const struct holder *h)
{
	return h ? h->tid : 0;
}

unsigned cookie_live_holders(void)
{
	return live_holders - (zero_holder ? 1 : 0);
}

int cookie_init(void)
{
	sc_cookie c;
	int r;

	r = sc_get(0, &c);
	if (r < 0)
		return r;
	/* Started with a cookie (inherited from whoever launched us): drop it,
	 * or every holder created later would be measured against it. */
	if (c != 0) {
		r = sc_share_from(1);
		if (r < 0)
			return r;
	}
	r = holder_start(-1, &zero_holder);
	if (r < 0)
		return r;
	main_cookie = 0;
	return 0;
}

void cookie_finalize(void)
{
	zero_holder = holder_free(zero_holder);
}

static int carry(const struct holder *h)
{
	const struct holder *src = h ? h : zero_holder;
	int r;

	if (main_cookie == holder_cookie(src))
		return 0;
	r = sc_share_from(src->tid);
	if (r < 0) {
		main_cookie = (sc_cookie)-1;
		return r;
	}
	main_cookie = holder_cookie(src);
	return 0;
}

int cookie_assign(const struct holder *h, pid_t pid)
{
	int r = carry(h);

	return r < 0 ? r : sc_share_to(pid, SC_SCOPE_THREAD_GROUP);
}

int cookie_create(pid_t pid)
{
	return sc_create(pid, SC_SCOPE_THREAD_GROUP);
}

int cookie_get(pid_t tid, sc_cookie *ret)
{
	return sc_get(tid, ret);
}
