/* A fixed-capacity ring buffer of doubles with a running mean,
 * used here to smooth noisy sensor readings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double *data;
    size_t capacity;
    size_t head;   /* index of the next write */
    size_t count;  /* number of valid elements */
    double sum;
} RingBuffer;

static int ring_init(RingBuffer *rb, size_t capacity)
{
    if (capacity == 0) {
        return -1;
    }
    rb->data = calloc(capacity, sizeof *rb->data);
    if (rb->data == NULL) {
        return -1;
    }
    rb->capacity = capacity;
    rb->head = 0;
    rb->count = 0;
    rb->sum = 0.0;
    return 0;
}

static void ring_free(RingBuffer *rb)
{
    free(rb->data);
    memset(rb, 0, sizeof *rb);
}

/* Pushes a value, overwriting the oldest one when the buffer is full. */
static void ring_push(RingBuffer *rb, double value)
{
    if (rb->count == rb->capacity) {
        rb->sum -= rb->data[rb->head];
    } else {
        rb->count++;
    }
    rb->data[rb->head] = value;
    rb->sum += value;
    rb->head = (rb->head + 1) % rb->capacity;
}

static double ring_mean(const RingBuffer *rb)
{
    return rb->count ? rb->sum / (double)rb->count : 0.0;
}

/* Returns the i-th oldest element (0 = oldest). */
static double ring_get(const RingBuffer *rb, size_t i)
{
    size_t start = (rb->head + rb->capacity - rb->count) % rb->capacity;
    return rb->data[(start + i) % rb->capacity];
}

int main(void)
{
    const double readings[] = {20.1, 20.4, 35.0, 20.3, 20.2, 19.9, 20.0, 20.6};
    const size_t n = sizeof readings / sizeof readings[0];
    RingBuffer rb;

    if (ring_init(&rb, 4) != 0) {
        fprintf(stderr, "out of memory\n");
        return EXIT_FAILURE;
    }
    for (size_t i = 0; i < n; i++) {
        ring_push(&rb, readings[i]);
        printf("reading %2zu: %5.1f  mean of last %zu: %6.2f\n",
               i + 1, readings[i], rb.count, ring_mean(&rb));
    }
    printf("window:");
    for (size_t i = 0; i < rb.count; i++) {
        printf(" %.1f", ring_get(&rb, i));
    }
    printf("\n");
    ring_free(&rb);
    return EXIT_SUCCESS;
}
