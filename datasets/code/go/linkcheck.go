package main

// Command linkcheck reads URLs from standard input, checks them concurrently
// with a bounded worker pool, and prints one status line per URL in input order.

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

type result struct {
	index  int
	url    string
	status int
	err    error
	took   time.Duration
}

func check(ctx context.Context, client *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, url, nil)
	if err != nil {
		return 0, fmt.Errorf("building request: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}

func worker(ctx context.Context, client *http.Client, jobs <-chan result, out chan<- result, wg *sync.WaitGroup) {
	defer wg.Done()
	for job := range jobs {
		start := time.Now()
		job.status, job.err = check(ctx, client, job.url)
		job.took = time.Since(start)
		out <- job
	}
}

func main() {
	const workers = 4
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := &http.Client{Timeout: 5 * time.Second}

	var urls []string
	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			urls = append(urls, line)
		}
	}
	if err := scanner.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "reading input:", err)
		os.Exit(1)
	}

	jobs := make(chan result)
	out := make(chan result, len(urls))
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go worker(ctx, client, jobs, out, &wg)
	}
	for i, u := range urls {
		jobs <- result{index: i, url: u}
	}
	close(jobs)
	wg.Wait()
	close(out)

	ordered := make([]result, len(urls))
	for r := range out {
		ordered[r.index] = r
	}
	failures := 0
	for _, r := range ordered {
		if r.err != nil {
			failures++
			fmt.Printf("FAIL %-40s %v\n", r.url, r.err)
			continue
		}
		fmt.Printf("%4d %-40s %6.0fms\n", r.status, r.url, float64(r.took.Milliseconds()))
	}
	if failures > 0 {
		os.Exit(2)
	}
}
