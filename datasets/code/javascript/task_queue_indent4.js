// A small promise-based task queue with a concurrency limit and retries.
// Tasks are functions returning promises; results come back in submission order.

'use strict';

class TaskQueue {
    constructor({ concurrency = 2, retries = 1, delayMs = 100 } = {}) {
        if (!Number.isInteger(concurrency) || concurrency < 1) {
            throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
        }
        this.concurrency = concurrency;
        this.retries = retries;
        this.delayMs = delayMs;
        this.running = 0;
        this.waiting = [];
    }

    add(task) {
        return new Promise((resolve, reject) => {
            this.waiting.push({ task, resolve, reject, attempt: 0 });
            this.#next();
        });
    }

    async #run(entry) {
        this.running += 1;
        try {
            entry.resolve(await entry.task());
        } catch (error) {
            if (entry.attempt < this.retries) {
                entry.attempt += 1;
                await sleep(this.delayMs * 2 ** entry.attempt);
                this.waiting.unshift(entry);
            } else {
                entry.reject(error);
            }
        } finally {
            this.running -= 1;
            this.#next();
        }
    }

    #next() {
        while (this.running < this.concurrency && this.waiting.length > 0) {
            this.#run(this.waiting.shift());
        }
    }
}

function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
}

async function fetchPrice(symbol) {
    await sleep(20 + symbol.length * 5);
    if (symbol === 'FLAKY' && Math.random() < 0.5) {
        throw new Error(`temporary failure for ${symbol}`);
    }
    return { symbol, price: Number((symbol.charCodeAt(0) * 1.37).toFixed(2)) };
}

async function main() {
    const queue = new TaskQueue({ concurrency: 3, retries: 2 });
    const symbols = ['ACME', 'GLOBEX', 'INITECH', 'FLAKY', 'UMBRELLA'];
    const results = await Promise.allSettled(
        symbols.map((symbol) => queue.add(() => fetchPrice(symbol))),
    );
    for (const [index, result] of results.entries()) {
        if (result.status === 'fulfilled') {
            console.log(`${symbols[index].padEnd(10)} ${result.value.price}`);
        } else {
            console.log(`${symbols[index].padEnd(10)} failed: ${result.reason.message}`);
        }
    }
}

main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
});
