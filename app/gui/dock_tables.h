// The tables of the docks (advisor, comparison): read-only rows, columns sized to content.
#pragma once

#include <QHeaderView>
#include <QStringList>
#include <QTableWidget>

namespace perwiz::gui {

inline QTableWidget* makeTable(const QStringList& headers, QWidget* parent) {
  auto* t = new QTableWidget(0, headers.size(), parent);
  t->setHorizontalHeaderLabels(headers);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::ExtendedSelection);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->verticalHeader()->setVisible(false);
  t->horizontalHeader()->setStretchLastSection(false);  // columns sized to content
  t->resizeColumnsToContents();                         // headers whole before the first rows
  t->setSortingEnabled(false);
  return t;
}

inline QTableWidgetItem* cell(const QString& text, bool number = false) {
  auto* item = new QTableWidgetItem(text);
  if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

}  // namespace perwiz::gui
