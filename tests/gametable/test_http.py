"""The table's HTTP door (/api/tables) in the real app: checkers and backgammon made, played
against the computer, refused in the one error shape, exported, and back after a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings


def app_client(db: Path) -> TestClient:
    return TestClient(create_app(ServerSettings(db_path=db)))


def make(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/tables", json=body)
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


CHECKERS_VS_HARD = {
    "game": "checkers",
    "seats": {"black": {"kind": "person"}, "white": {"kind": "computer", "level": "hard"}},
}


def test_a_checkers_game_against_the_computer_over_http(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite3") as client:
        made = make(client, **CHECKERS_VS_HARD)
        table_id, token = made["id"], made["token"]
        view = made["view"]
        assert view["game"] == "checkers" and view["to_act"] == ["black"]
        assert view["state"]["legal"][:2] == [[9, 13], [9, 14]]
        headers = {"X-Table-Token": token}
        answer = client.post(
            f"/api/tables/{table_id}/actions",
            json={"side": "black", "action": {"type": "move", "path": [11, 15]}},
            headers=headers,
        )
        assert answer.status_code == 200, answer.text
        state = answer.json()["view"]["state"]
        assert len(state["moves"]) == 2 and state["moves"][0] == "11-15"  # the computer replied
        assert answer.json()["view"]["to_act"] == ["black"]
        exported = client.get(f"/api/tables/{table_id}/export.pdn", headers=headers)
        assert exported.status_code == 200 and "1. 11-15 " in exported.text
        assert '[GameType "21"]' in exported.text
    # a restart: the table comes back from the store
    with app_client(tmp_path / "db.sqlite3") as client:
        again = client.get(f"/api/tables/{table_id}", headers=headers)
        assert again.status_code == 200 and again.json()["view"]["state"] == state


def test_draws_are_claimed_over_http_and_the_computer_claims_one(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite3") as client:
        made = make(client, **CHECKERS_VS_HARD, settings={"start": "B:WK32:BK1"})
        table_id, headers = made["id"], {"X-Table-Token": made["token"]}
        url = f"/api/tables/{table_id}/actions"
        state = made["view"]["state"]
        assert state["draws"] == "claim" and state["claimable"] is None
        assert state["can"]["claim_draw"] is False
        refused = client.post(url, json={"side": "black", "action": {"type": "claim_draw"}},
                              headers=headers)  # fmt: skip
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "not_allowed"
        assert "no draw can be claimed now" in refused.json()["error"]["message"]
        view = made["view"]
        for _ in range(40):  # Black's king goes to and fro; the computer claims its draw
            path = view["state"]["legal"][0]
            answer = client.post(url, json={"side": "black", "action": {"type": "move",
                                 "path": path}}, headers=headers)  # fmt: skip
            assert answer.status_code == 200, answer.text
            view = answer.json()["view"]
            if view["outcome"] is not None:
                break
        assert view["outcome"] == {"winner": None, "reason": "threefold repetition", "points": 0}
        exported = client.get(f"/api/tables/{table_id}/export.pdn", headers=headers)
        assert '[Result "1/2-1/2"]' in exported.text
        table = client.app.state.tables._tables[table_id].table  # type: ignore[attr-defined]
        assert table.game.log()[-1] == {"claim_draw": "white"}
        assert len(view["state"]["moves"]) == 7


def test_refusals_answer_in_one_shape_and_change_nothing(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite3") as client:
        made = make(client, **CHECKERS_VS_HARD)
        table_id, headers = made["id"], {"X-Table-Token": made["token"]}
        url = f"/api/tables/{table_id}/actions"
        cases = [
            ({"side": "black", "action": {"type": "move", "path": [12, 8]}}, 422, "illegal_move"),
            ({"side": "white", "action": {"type": "move", "path": [22, 18]}}, 409,
             "not_your_seat"),
            ({"side": "black", "action": {"type": "fly"}}, 422, "invalid_action"),
            ({"side": "green", "action": {"type": "resign"}}, 422, "no_seat"),
            ({"side": "black"}, 422, "invalid_request"),
        ]  # fmt: skip
        for body, status, code in cases:
            response = client.post(url, json=body, headers=headers)
            assert response.status_code == status, (body, response.text)
            assert response.json()["error"]["code"] == code
        assert "a man moves forward only" in client.post(url, json=cases[0][0],
                                                         headers=headers).text  # fmt: skip
        wrong = client.get(f"/api/tables/{table_id}", headers={"X-Table-Token": "x" * 32})
        assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "not_your_table"
        missing = client.get("/api/tables/AAAAAAAAAAAA", headers=headers)
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
        view = client.get(f"/api/tables/{table_id}", headers=headers).json()["view"]
        assert view["state"]["moves"] == [] and view["to_act"] == ["black"]
        for body, code in [
            ({"game": "chess", "seats": CHECKERS_VS_HARD["seats"]}, "unknown_game"),
            ({"game": "checkers", "seats": {"black": {"kind": "computer", "level": "easy"},
                                            "white": {"kind": "computer", "level": "easy"}}},
             "invalid_seat"),
            ({**CHECKERS_VS_HARD, "time_control": "lightning"}, "invalid_time_control"),
            ({**CHECKERS_VS_HARD, "settings": {"start": "Q:W1:B2"}}, "invalid_settings"),
        ]:  # fmt: skip
            response = client.post("/api/tables", json=body)
            assert response.status_code == 422 and response.json()["error"]["code"] == code


def test_backgammon_at_the_table_with_the_computer_moving_first(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite3") as client:
        made = make(
            client,
            game="backgammon",
            settings={"length": 1, "cube": False},
            seats={"white": {"kind": "computer", "level": "easy"}, "black": {"kind": "person"}},
        )
        table_id, headers = made["id"], {"X-Table-Token": made["token"]}
        view = made["view"]
        assert view["game"] == "backgammon" and view["state"]["board"]["points"]
        # the person throws the opening roll (either side may); if the computer won it, it
        # has played already and the person rolls next
        answer = client.post(
            f"/api/tables/{table_id}/actions",
            json={"side": "black", "action": {"type": "roll"}},
            headers=headers,
        )
        assert answer.status_code == 200, answer.text
        view = answer.json()["view"]
        assert view["to_act"] == ["black"] and view["state"]["phase"] in ("move", "roll")
        exported = client.get(f"/api/tables/{table_id}/export.mat", headers=headers)
        assert exported.status_code == 200 and "1 point match" in exported.text
        wrong = client.get(f"/api/tables/{table_id}/export.pdn", headers=headers)
        assert wrong.status_code == 404 and wrong.json()["error"]["code"] == "unknown_format"


def test_one_address_makes_a_bounded_number_of_tables(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite3") as client:
        service = client.app.state.tables  # type: ignore[attr-defined]
        service.max_per_owner = 3
        bad = {**CHECKERS_VS_HARD, "settings": {"start": "Q:W1:B2"}}
        assert client.post("/api/tables", json=bad).status_code == 422  # not counted
        for _ in range(3):
            make(client, **CHECKERS_VS_HARD)
        refused = client.post("/api/tables", json=CHECKERS_VS_HARD)
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "too_many_tables"
