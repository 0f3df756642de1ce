// Shortest paths on a small road network with Dijkstra's algorithm,
// returning both the distance and the route.
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

namespace roads {

struct Edge {
    std::string to;
    double km;
};

class Network {
public:
    void connect(const std::string& a, const std::string& b, double km) {
        adjacency_[a].push_back({b, km});
        adjacency_[b].push_back({a, km});
    }

    struct Route {
        double km;
        std::vector<std::string> stops;
    };

    std::optional<Route> shortest(const std::string& from, const std::string& to) const {
        using Item = std::pair<double, std::string>;
        std::priority_queue<Item, std::vector<Item>, std::greater<>> frontier;
        std::map<std::string, double> best;
        std::map<std::string, std::string> previous;

        best[from] = 0.0;
        frontier.emplace(0.0, from);
        while (!frontier.empty()) {
            auto [dist, town] = frontier.top();
            frontier.pop();
            if (town == to) {
                break;
            }
            if (dist > best[town]) {
                continue;  // stale queue entry
            }
            auto it = adjacency_.find(town);
            if (it == adjacency_.end()) {
                continue;
            }
            for (const Edge& edge : it->second) {
                const double candidate = dist + edge.km;
                auto known = best.find(edge.to);
                if (known == best.end() || candidate < known->second) {
                    best[edge.to] = candidate;
                    previous[edge.to] = town;
                    frontier.emplace(candidate, edge.to);
                }
            }
        }
        if (!best.count(to)) {
            return std::nullopt;
        }
        Route route{best.at(to), {}};
        for (std::string at = to; at != from; at = previous.at(at)) {
            route.stops.insert(route.stops.begin(), at);
        }
        route.stops.insert(route.stops.begin(), from);
        return route;
    }

private:
    std::map<std::string, std::vector<Edge>> adjacency_;
};

}  // namespace roads

int main() {
    roads::Network net;
    net.connect("Aldport", "Briarwood", 12.5);
    net.connect("Briarwood", "Cressfield", 7.0);
    net.connect("Aldport", "Dunmore", 20.0);
    net.connect("Dunmore", "Cressfield", 3.5);
    net.connect("Cressfield", "Eastholm", 9.25);

    if (auto route = net.shortest("Aldport", "Eastholm")) {
        std::cout << "Distance: " << route->km << " km\nRoute:";
        for (const auto& stop : route->stops) {
            std::cout << ' ' << stop;
        }
        std::cout << '\n';
    } else {
        std::cout << "No route found\n";
    }
    return 0;
}
